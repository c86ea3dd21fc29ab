// The JSON API through the real app over a real SQLite file seeded with the finished and the live
// run: access like the status pages, each body checked against the same zod schema the OpenAPI
// document is generated from, and the document itself describing exactly the routes served.
import { afterEach, describe, expect, it } from 'vitest';
import {
  attemptSchema,
  errorSchema,
  runDetailSchema,
  runListSchema,
  statsSchema,
} from '../../src/status/api-schemas.ts';
import { finishedDashboard, finishedRunId, hostileTitle, liveRunId } from '../fixtures/runs/finished-run.ts';
import { createStatusApp, type StatusApp, statusToken } from '../fixtures/runs/status-app.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const setup = async (opts: Parameters<typeof createStatusApp>[0] = {}): Promise<StatusApp> => {
  const s = await createStatusApp(opts);
  cleanups.push(s.close);
  return s;
};
const bearer = { authorization: `Bearer ${statusToken}` };
const paths = [
  '/api/v1/runs',
  `/api/v1/runs/${finishedRunId}`,
  `/api/v1/runs/${finishedRunId}/attempts/1`,
  '/api/v1/stats',
];

describe('/api/v1 access', () => {
  it('is off without STATUS_TOKEN, answering JSON 404 and no run', async () => {
    const { app } = await setup({ token: undefined });
    for (const path of paths) {
      const res = await app.request(path, { headers: bearer });
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({
        error: 'not_found',
        message: expect.stringContaining('STATUS_TOKEN'),
      });
    }
  });

  it('refuses a request without the token or with a wrong one, before reading a run', async () => {
    const { app } = await setup();
    for (const path of paths) {
      expect((await app.request(path)).status, path).toBe(401);
      const wrong = await app.request(path, { headers: { authorization: 'Bearer nope' } });
      expect(wrong.status, path).toBe(401);
      expect(await wrong.text()).not.toContain('launch');
    }
  });
});

describe('/api/v1 content', () => {
  it('lists the runs, and only the live ones with ?live=true', async () => {
    const { app } = await setup();
    const all = runListSchema.parse(await (await app.request('/api/v1/runs', { headers: bearer })).json());
    expect(all.runs.map((r) => [r.id, r.state, r.live, r.issues])).toEqual(
      expect.arrayContaining([
        [finishedRunId, 'done', false, { done: 3, total: 5 }],
        [liveRunId, 'running', true, { done: 1, total: 2 }],
      ]),
    );
    expect(all.runs.find((r) => r.id === finishedRunId)).toMatchObject({
      title: 'M1 <b>launch</b>',
      reason: 'all issues closed',
      forge: 'github',
    });
    const live = runListSchema.parse(
      await (await app.request('/api/v1/runs?live=true', { headers: bearer })).json(),
    );
    expect(live.runs.map((r) => r.id)).toEqual([liveRunId]);
  });

  it('gives a run with its issues, waves and attempts, titles as data', async () => {
    const { app } = await setup();
    const res = await app.request(`/api/v1/runs/${finishedRunId}`, { headers: bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const run = runDetailSchema.parse(await res.json());
    expect(run.issues.map((i) => [i.number, i.state])).toEqual([
      [1, 'closed'],
      [2, 'closed'],
      [3, 'merged'],
      [4, 'failed'],
      [5, 'stalled'],
    ]);
    expect(run.issues.find((i) => i.number === 3)).toMatchObject({
      title: hostileTitle,
      pr: 12,
      mergedSha: 'abc1234',
      blockedBy: [1],
      attempts: [2, 3],
    });
    expect(run.issues.find((i) => i.number === 2)?.epic).toBe(true);
    expect(run.waves).toEqual([
      { wave: 1, issues: [1, 5] },
      { wave: 2, issues: [3] },
      { wave: 3, issues: [2, 4] },
    ]);
    expect(run.currentWave).toBe(2);
    expect(run.attempts).toHaveLength(9);
    // No paths on disk, pids or argv leave through the API.
    const text = JSON.stringify(run);
    expect(text).not.toContain('/nonexistent');
    expect(text).not.toContain('argv');
  });

  it('gives one attempt by its position, and 404 for a run or attempt that does not exist', async () => {
    const { app } = await setup();
    const a = attemptSchema.parse(
      await (await app.request(`/api/v1/runs/${finishedRunId}/attempts/3`, { headers: bearer })).json(),
    );
    expect(a).toMatchObject({
      n: 3,
      issue: { repo: 'acme/app', number: 3 },
      rosterEntry: 'sonnet',
      outcome: 'solved',
      tokens: { input: 6300, output: 210 },
    });
    for (const path of [
      `/api/v1/runs/${finishedRunId}/attempts/10`,
      '/api/v1/runs/nope',
      '/api/v1/runs/nope/attempts/1',
    ]) {
      const res = await app.request(path, { headers: bearer });
      expect(res.status, path).toBe(404);
      expect(errorSchema.parse(await res.json()).error).toBe('not_found');
    }
  });

  it('refuses a malformed parameter with 400 in the API’s error shape', async () => {
    const { app } = await setup();
    for (const path of [
      `/api/v1/runs/${finishedRunId}/attempts/0`,
      `/api/v1/runs/${finishedRunId}/attempts/x`,
      '/api/v1/runs/a.b',
      '/api/v1/runs?live=yes',
    ]) {
      const res = await app.request(path, { headers: bearer });
      expect(res.status, path).toBe(400);
      expect(errorSchema.parse(await res.json()).error, path).toBe('bad_request');
    }
  });

  it('gives the stats over every run or one, matching what /stats computes', async () => {
    const { app } = await setup();
    const all = statsSchema.parse(await (await app.request('/api/v1/stats', { headers: bearer })).json());
    expect(all.attempts).toBe(9);
    expect(all.byOutcome).toMatchObject({ solved: 2, unsolved: 5, stalled: 1, environment_failure: 1 });
    const one = await app.request(`/api/v1/stats?run=${liveRunId}`, { headers: bearer });
    expect(statsSchema.parse(await one.json()).attempts).toBe(0);
    expect((await app.request('/api/v1/stats?run=nope', { headers: bearer })).status).toBe(404);
  });
});

describe('/api/v1 counts', () => {
  it('the runs list, each run and the status index count the same issues (the dashboard’s too)', async () => {
    const { app, events } = await setup();
    // The live run's dashboard draws an issue no worker has touched yet: no store row, no attempt.
    events.publish(liveRunId, {
      ...finishedDashboard(),
      runId: liveRunId,
      milestone: 'M2',
      runState: 'running',
      issues: [7, 8, 9].map((number) => ({
        number,
        title: `#${number}`,
        state: 'blocked',
        attempts: 0,
        blockedBy: [],
      })),
    });
    const list = runListSchema.parse(await (await app.request('/api/v1/runs', { headers: bearer })).json());
    for (const summary of list.runs) {
      const detail = runDetailSchema.parse(
        await (await app.request(`/api/v1/runs/${summary.id}`, { headers: bearer })).json(),
      );
      expect(summary.issues, summary.id).toEqual(detail.run.issues);
      expect(detail.run.issues.total, summary.id).toBe(detail.issues.length);
    }
    expect(list.runs.find((r) => r.id === liveRunId)?.issues).toEqual({ done: 1, total: 3 });
    const index = await (await app.request('/', { headers: bearer })).text();
    expect(index).toContain('1/3');
  });
});

describe('/api/v1/openapi.json', () => {
  it('describes every route served, with the bearer scheme and the response schemas', async () => {
    const { app } = await setup();
    const res = await app.request('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
      security: unknown;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/runs',
      '/runs/{id}',
      '/runs/{id}/attempts/{n}',
      '/stats',
    ]);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['RunList', 'RunSummary', 'RunDetail', 'RunIssue', 'Attempt', 'Stats', 'Error']),
    );
    expect(doc.components.securitySchemes).toEqual({
      statusToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(doc.security).toEqual([{ statusToken: [] }]);
    expect(Object.keys(doc.paths['/runs/{id}']!.get!.responses).sort()).toEqual(['200', '400', '401', '404']);
  });

  it('is served even when the API is off, and says nothing about runs', async () => {
    const { app } = await setup({ token: undefined });
    const res = await app.request('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain(finishedRunId);
  });
});
