// Cost in money on the status pages and in the API: for the finished run's attempts priced by a table
// (sonnet priced, the local model free, codex's model not in it), each attempt's cost, each issue's
// (the sum of its attempts) and the run's (the sum of all) are the same numbers on the API, the run
// page, the attempt pages, the runs list and /stats, and an unpriced model is "unknown price", never a sum.
import { afterEach, describe, expect, it } from 'vitest';
import { priceTableOf } from '../../src/plan/cost.ts';
import { attemptSchema, runDetailSchema, runListSchema, statsSchema } from '../../src/status/api-schemas.ts';
import { finishedRunId } from '../fixtures/runs/finished-run.ts';
import { createStatusApp, type StatusApp, statusToken } from '../fixtures/runs/status-app.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const prices = priceTableOf({ 'claude-sonnet-4-5': { input: 3, output: 15 }, qwen: { input: 0, output: 0 } });

const get = async (app: StatusApp['app'], path: string): Promise<string> => {
  const res = await app.request(path, { headers: { authorization: `Bearer ${statusToken}` } });
  expect(res.status, path).toBe(200);
  return res.text();
};

describe('cost on the status pages and in the API', () => {
  it('prices each attempt, sums issues and the run, and says unknown price for a model without one', async () => {
    const s = await createStatusApp({ prices });
    cleanups.push(s.close);
    const d = runDetailSchema.parse(JSON.parse(await get(s.app, `/api/v1/runs/${finishedRunId}`)));
    const byIssue = (n: number) => d.issues.find((i) => i.number === n)!;
    // #3: 6300 in × $3/M + 210 out × $15/M = 22,050 µ$; its first attempt (the local model) is free.
    expect(byIssue(3).cost).toEqual({ usd: '$0.02', microUsd: 22_050, unpriced: 0 });
    // #4: 5000 × $3/M + 300 × $15/M = 19,500 µ$ (its environment failure used no tokens).
    expect(byIssue(4).cost).toEqual({ usd: '$0.02', microUsd: 19_500, unpriced: 0 });
    // #5: codex's gpt-5-codex is not in the table: no number is made up for it.
    expect(byIssue(5).cost).toEqual({ usd: 'unknown price', microUsd: 0, unpriced: 1 });
    expect(d.run.cost).toEqual({ usd: '$0.04 + unknown price', microUsd: 41_550, unpriced: 1 });
    // The issue's cost is the sum of its attempts', the run's the sum of all.
    for (const i of d.issues) {
      const mine = d.attempts.filter((a) => i.attempts.includes(a.n));
      expect(i.cost.microUsd).toBe(mine.reduce((m, a) => m + a.cost.microUsd, 0));
      expect(i.cost.unpriced).toBe(mine.reduce((m, a) => m + a.cost.unpriced, 0));
    }
    expect(d.run.cost.microUsd).toBe(d.attempts.reduce((m, a) => m + a.cost.microUsd, 0));

    const page = await get(s.app, `/runs/${finishedRunId}`);
    expect(page).toContain('<td id="run-cost">$0.04 + unknown price</td>');
    for (const i of d.issues) {
      const row = page.slice(page.indexOf(`<tr data-issue="${i.number}"`));
      expect(row.slice(0, row.indexOf('</tr>'))).toContain(`<td class="cost">${i.cost.usd}</td>`);
    }
    for (const a of d.attempts) {
      const attempt = attemptSchema.parse(
        JSON.parse(await get(s.app, `/api/v1/runs/${finishedRunId}/attempts/${a.n}`)),
      );
      expect(attempt.cost).toEqual(a.cost);
      expect(await get(s.app, `/runs/${finishedRunId}/attempts/${a.n}`)).toContain(
        `<td id="cost">${a.cost.usd}</td>`,
      );
    }
    const codexAttempt = d.attempts.find((a) => a.model === 'gpt-5-codex')!;
    expect(codexAttempt.cost.usd).toBe('unknown price');

    const list = runListSchema.parse(JSON.parse(await get(s.app, '/api/v1/runs')));
    expect(list.runs.find((r) => r.id === finishedRunId)?.cost).toEqual(d.run.cost);
    expect(await get(s.app, '/')).toContain(`<td class="cost">${d.run.cost.usd}</td>`);

    const stats = statsSchema.parse(JSON.parse(await get(s.app, '/api/v1/stats')));
    expect(stats.cost.microUsd).toBe(list.runs.reduce((m, r) => m + r.cost.microUsd, 0));
    expect(stats.rows.find((r) => r.rosterEntry === 'codex-high')?.cost.usd).toBe('unknown price');
    expect(await get(s.app, '/stats')).toContain(`cost <span id="cost">${stats.cost.usd}</span>`);
  });

  it('prices with the built-in table when the config names no prices', async () => {
    const s = await createStatusApp();
    cleanups.push(s.close);
    const d = runDetailSchema.parse(JSON.parse(await get(s.app, `/api/v1/runs/${finishedRunId}`)));
    // None of the fixture's models (claude-sonnet-4-5, qwen, gpt-5-codex) is in the built-in table.
    expect(d.run.cost.usd).toBe('unknown price');
  });
});
