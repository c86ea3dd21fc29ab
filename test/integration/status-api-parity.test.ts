// The status pages and the JSON API read the same objects: for one store state (and again after the
// state changes), every run, issue, wave and attempt the API answers appears on the page with the
// same state, hostile titles escaped. `blitz-bot status` / `stats --server` print what the API serves.
import { afterEach, describe, expect, it } from 'vitest';
import { outcomeStateWords } from '../../src/plan/state-words.ts';
import {
  type ApiAttempt,
  attemptSchema,
  type RunDetail,
  runDetailSchema,
  runListSchema,
  statsSchema,
} from '../../src/status/api-schemas.ts';
import { runStatsCli } from '../../src/status/stats-command.ts';
import { runStatusCli } from '../../src/status/status-command.ts';
import { finishedAttempts, finishedRunId, hostileTitle, liveRunId } from '../fixtures/runs/finished-run.ts';
import { createStatusApp, listen, type StatusApp, statusToken } from '../fixtures/runs/status-app.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const setup = async (): Promise<StatusApp> => {
  const s = await createStatusApp();
  cleanups.push(s.close);
  return s;
};

const bearer = { authorization: `Bearer ${statusToken}` };

/** Text as hono/html writes it into a page. */
const escaped = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const get = async (app: StatusApp['app'], path: string): Promise<{ status: number; text: string }> => {
  const res = await app.request(path, { headers: bearer });
  return { status: res.status, text: await res.text() };
};

const apiRun = async (app: StatusApp['app'], id: string): Promise<RunDetail> => {
  const res = await get(app, `/api/v1/runs/${id}`);
  expect(res.status).toBe(200);
  return runDetailSchema.parse(JSON.parse(res.text));
};

/** Every issue, wave and attempt of the API's run object, as the run page must show it. */
const expectRunPageHolds = (page: string, d: RunDetail): void => {
  expect(page).toContain(`data-state="${d.run.state}"`);
  expect(page).toContain(`${d.run.issues.done}/${d.run.issues.total} issues merged or closed`);
  expect(page).toContain(`<code>${escaped(d.integrationBranch)}</code>`);
  for (const i of d.issues) {
    expect(page, `issue #${i.number}`).toContain(
      `<tr data-issue="${i.number}" data-state="${i.state}" data-attempts="${i.attempts.join(' ')}">`,
    );
    if (i.title !== null) expect(page, `title of #${i.number}`).toContain(escaped(i.title));
    if (i.lastError) expect(page).toContain(escaped(i.lastError));
  }
  for (const w of d.waves)
    expect(page, `wave ${w.wave}`).toContain(
      `<li data-wave="${w.wave}">${w.issues.map((n) => `<span class="badge">#${n}</span> `).join('')}</li>`,
    );
  for (const a of d.attempts)
    expect(page, `attempt ${a.n}`).toContain(
      `<tr data-attempt="${a.n}" data-issue="${a.issue.number}" data-outcome="${a.outcome ?? 'running'}">`,
    );
  expect(page.match(/<tr data-attempt="/g) ?? []).toHaveLength(d.attempts.length);
  expect(page.match(/<tr data-issue="/g) ?? []).toHaveLength(d.issues.length);
};

const expectAttemptPageHolds = (page: string, a: ApiAttempt): void => {
  expect(page).toContain(`<h1 data-attempt="${a.n}" data-issue="${a.issue.number}">`);
  expect(page).toContain(`#${a.issue.number} ${escaped(a.issue.title)}</h1>`);
  expect(page).toContain(`<code>${escaped(a.branch)}</code> off <code>${escaped(a.baseBranch)}</code>`);
  // The page says it in words (plan/state-words.ts); the API keeps the outcome's name.
  expect(page).toContain(`<td id="outcome">${a.outcome ? outcomeStateWords(a.outcome) : 'running'}`);
  expect(page).toContain(`${escaped(a.rosterEntry)} <span class="muted">${escaped(a.tool)}`);
};

describe('the status pages render the API objects', () => {
  it('shows on the run page every issue, wave and attempt of GET /api/v1/runs/{id}, before and after a change', async () => {
    const { app, runs } = await setup();
    const before = await apiRun(app, finishedRunId);
    expect(before.issues.map((i) => i.number)).toEqual([1, 2, 3, 4, 5]);
    const page = await get(app, `/runs/${finishedRunId}`);
    expect(page.status).toBe(200);
    expectRunPageHolds(page.text, before);
    expect(page.text).not.toContain(hostileTitle);

    // The store moves on: #4 merged with a PR, #5 gets an attempt that is still running.
    await runs.upsertRunIssue(finishedRunId, 'acme/app', 4, {
      state: 'merged',
      prNumber: 44,
      lastError: '<b>late</b>',
    });
    const later = '2026-11-28T12:00:00.000Z';
    const extra = { ...finishedAttempts()[6]!, id: 'att-extra', launchedAt: later, startedAt: later };
    const { endedAt: _e, exitCode: _x, outcome: _o, ...running } = extra;
    await runs.ledger.create(running);
    const after = await apiRun(app, finishedRunId);
    expect(after.issues.find((i) => i.number === 4)).toMatchObject({ state: 'merged', pr: 44 });
    expect(after.attempts.at(-1)).toMatchObject({ n: 10, outcome: null, issue: { number: 5 } });
    const changed = await get(app, `/runs/${finishedRunId}`);
    expectRunPageHolds(changed.text, after);
    expect(changed.text).toContain('#44');
    expect(changed.text).not.toContain('<b>late</b>');
    // The page would fail the old object: #4 is no longer shown as failed.
    expect(changed.text).not.toContain('<tr data-issue="4" data-state="failed"');
  });

  it('lists on / every run of GET /api/v1/runs with its state and progress', async () => {
    const { app } = await setup();
    const list = runListSchema.parse(JSON.parse((await get(app, '/api/v1/runs')).text));
    expect(list.runs.map((r) => r.id).sort()).toEqual([finishedRunId, liveRunId].sort());
    const page = (await get(app, '/')).text;
    for (const r of list.runs) {
      expect(page).toContain(
        `<tr data-run="${r.id}" data-state="${r.state}" class="${r.live ? 'active' : 'inactive'}">`,
      );
      expect(page).toContain(`<td>${escaped(r.title)}</td>`);
      expect(page).toContain(`<td>${r.issues.done}/${r.issues.total}</td>`);
    }
    // The live run is listed first.
    expect(page.indexOf(`data-run="${liveRunId}"`)).toBeLessThan(page.indexOf(`data-run="${finishedRunId}"`));
  });

  it('shows on each attempt page what GET /api/v1/runs/{id}/attempts/{n} answers', async () => {
    const { app } = await setup();
    const detail = await apiRun(app, finishedRunId);
    for (const { n } of detail.attempts) {
      const api = await get(app, `/api/v1/runs/${finishedRunId}/attempts/${n}`);
      expect(api.status).toBe(200);
      const attempt = attemptSchema.parse(JSON.parse(api.text));
      expect(attempt).toEqual(detail.attempts[n - 1]);
      const page = await get(app, `/runs/${finishedRunId}/attempts/${n}`);
      expect(page.status).toBe(200);
      expectAttemptPageHolds(page.text, attempt);
      expect(page.text).not.toContain(hostileTitle);
    }
    // Past the last attempt: both say there is none.
    const past = detail.attempts.length + 1;
    expect((await get(app, `/api/v1/runs/${finishedRunId}/attempts/${past}`)).status).toBe(404);
    expect((await get(app, `/runs/${finishedRunId}/attempts/${past}`)).status).toBe(404);
  });

  it('shows on /stats the totals of GET /api/v1/stats, and refuses an unknown ?run= on both', async () => {
    const { app } = await setup();
    const stats = statsSchema.parse(JSON.parse((await get(app, '/api/v1/stats')).text));
    const page = (await get(app, '/stats')).text;
    const n = (k: string) => stats.byOutcome[k] ?? 0;
    expect(page).toContain(
      `${stats.attempts} attempts: ${n('solved')} solved, ${n('unsolved')} unsolved, ${n('stalled')} stalled`,
    );
    expect(page).toContain(
      `Tokens: ${stats.tokens.input} in, ${stats.tokens.output} out, ${stats.tokens.cache} cache; cost <span id="cost">${stats.cost.usd}</span>.`,
    );
    for (const r of stats.rows)
      expect(page).toContain(
        `data-entry="${r.rosterEntry}" data-tier="${r.tier}" data-band="${r.inBand ? 'yes' : 'no'}"`,
      );
    expect((await get(app, '/api/v1/stats?run=nope')).status).toBe(404);
    expect((await get(app, '/stats?run=nope')).status).toBe(404);
  });
});

describe('blitz-bot status and stats with --server', () => {
  const capture = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
  };

  it('print what the running bot’s API answers, with STATUS_TOKEN as the bearer', async () => {
    const { app } = await setup();
    const server = await listen(app);
    cleanups.push(server.close);
    const env = { STATUS_TOKEN: statusToken };

    const status = capture();
    expect(await runStatusCli(['--json', '--server', server.url], { ...status.io, env })).toBe(0);
    expect(status.err).toEqual([]);
    const live = JSON.parse((await get(app, '/api/v1/runs?live=true')).text);
    expect(JSON.parse(status.out.join(''))).toEqual(live);
    expect(live.runs.map((r: { id: string }) => r.id)).toEqual([liveRunId]);

    const text = capture();
    expect(await runStatusCli(['--server', server.url], { ...text.io, env })).toBe(0);
    expect(text.out.join('\n')).toContain('live runs: 1');

    const stats = capture();
    expect(
      await runStatsCli(['--json', '--run', finishedRunId, '--server', `${server.url}/`], {
        ...stats.io,
        env,
      }),
    ).toBe(0);
    expect(JSON.parse(stats.out.join(''))).toEqual(
      JSON.parse((await get(app, `/api/v1/stats?run=${finishedRunId}`)).text),
    );
    const statsText = capture();
    expect(await runStatsCli(['--server', server.url], { ...statsText.io, env })).toBe(0);
    expect(statsText.out.join('\n')).toContain('attempts: 9 (solved 2, unsolved 5, stalled 1, environment 1');
  });

  it('refuses a wrong or missing token, an unknown run, and plain http to another host, printing nothing', async () => {
    const { app } = await setup();
    const server = await listen(app);
    cleanups.push(server.close);

    const wrong = capture();
    expect(
      await runStatsCli(['--server', server.url], { ...wrong.io, env: { STATUS_TOKEN: 'not-it' } }),
    ).toBe(1);
    expect(wrong.out).toEqual([]);
    expect(wrong.err.join('')).toContain('refused STATUS_TOKEN');

    const missing = capture();
    expect(await runStatusCli(['--server', server.url], { ...missing.io, env: {} })).toBe(1);
    expect(missing.out).toEqual([]);
    expect(missing.err.join('')).toContain('set STATUS_TOKEN');

    const unknown = capture();
    expect(
      await runStatsCli(['--run', 'nope', '--server', server.url], {
        ...unknown.io,
        env: { STATUS_TOKEN: statusToken },
      }),
    ).toBe(1);
    expect(unknown.err.join('')).toContain('no such run');

    // The token must not travel in the clear to another machine; nothing is fetched.
    const plain = capture();
    expect(
      await runStatusCli(['--server', 'http://blitz.example.com'], {
        ...plain.io,
        env: { STATUS_TOKEN: statusToken },
      }),
    ).toBe(1);
    expect(plain.err.join('')).toContain('must be https');
    const creds = capture();
    expect(
      await runStatusCli(['--server', `http://u:p@127.0.0.1:1`], {
        ...creds.io,
        env: { STATUS_TOKEN: statusToken },
      }),
    ).toBe(1);
    expect(creds.err.join('')).toContain('must not carry credentials');
  });
});
