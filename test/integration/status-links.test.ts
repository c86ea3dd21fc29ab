// The status pages' links to the forge, the favicon, and a finished run's graph keeping its edges,
// through the real app over the seeded SQLite run.
import { afterEach, describe, expect, it } from 'vitest';
import { forgeWebLinks } from '../../src/forges/web-links.ts';
import { runDetailSchema } from '../../src/status/api-schemas.ts';
import { finishedRunId } from '../fixtures/runs/finished-run.ts';
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
const links = forgeWebLinks({ github: 'https://github.com', gitea: 'https://gitea.example.com/' });

describe('forge links', () => {
  it('the run page links each issue and PR to the forge, and the API carries the same URLs', async () => {
    const { app } = await setup({ links });
    const page = await (await app.request(`/runs/${finishedRunId}`, { headers: bearer })).text();
    expect(page).toContain('<a href="https://github.com/acme/app/issues/3">#3</a>');
    expect(page).toContain('<a href="https://github.com/acme/app/pull/12">#12</a>');
    const run = runDetailSchema.parse(
      await (await app.request(`/api/v1/runs/${finishedRunId}`, { headers: bearer })).json(),
    );
    expect(run.issues.find((i) => i.number === 3)).toMatchObject({
      url: 'https://github.com/acme/app/issues/3',
      prUrl: 'https://github.com/acme/app/pull/12',
    });
  });

  it('Gitea pull requests are under /pulls; an unknown forge address or a bad repo gives no link', () => {
    expect(links('gitea', 'acme/api')?.pull(4)).toBe('https://gitea.example.com/acme/api/pulls/4');
    expect(forgeWebLinks({ github: 'https://github.com' })('gitea', 'acme/api')).toBeUndefined();
    expect(links('github', '../evil')).toBeUndefined();
  });

  it('without links the numbers are plain text and the API says null', async () => {
    const { app } = await setup();
    const run = runDetailSchema.parse(
      await (await app.request(`/api/v1/runs/${finishedRunId}`, { headers: bearer })).json(),
    );
    expect(run.issues.every((i) => i.url === null && i.prUrl === null)).toBe(true);
  });
});

describe('why an issue waits', () => {
  it('the run page shows the reason beside pr_open, and the API carries it as `waiting`', async () => {
    const { app, runs } = await setup();
    const reason = 'merging PR #12: the forge answered 404 Not Found (Not Found); retried on the next pass';
    await runs.upsertRunIssue(finishedRunId, 'acme/app', 3, { state: 'pr_open', waitReason: reason });
    const page = await (await app.request(`/runs/${finishedRunId}`, { headers: bearer })).text();
    const row = /<tr data-issue="3"[\s\S]*?<\/tr>/.exec(page)?.[0] ?? '';
    expect(row).toMatch(
      /state-pr_open">PR open<\/span><div class="muted waiting">merging PR #12: the forge answered 404 Not Found/,
    );
    const api = async () =>
      runDetailSchema.parse(
        await (await app.request(`/api/v1/runs/${finishedRunId}`, { headers: bearer })).json(),
      );
    expect((await api()).issues.find((i) => i.number === 3)?.waiting).toBe(reason);
    await runs.upsertRunIssue(finishedRunId, 'acme/app', 3, { waitReason: null });
    expect((await api()).issues.find((i) => i.number === 3)?.waiting).toBeNull();
    expect(await (await app.request(`/runs/${finishedRunId}`, { headers: bearer })).text()).not.toContain(
      'class="muted waiting"',
    );
  });
});

describe('/favicon.ico', () => {
  it('is an ICO holding a 16×16 PNG, served without the token and when the pages are off', async () => {
    for (const token of [statusToken, undefined]) {
      const { app } = await setup({ token });
      const res = await app.request('/favicon.ico');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/x-icon');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
      expect([bytes[6], bytes[7]]).toEqual([16, 16]);
      const offset = bytes.readUInt32LE(18);
      expect(bytes.subarray(offset, offset + 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
      expect(bytes.readUInt32LE(14)).toBe(bytes.length - offset);
    }
  });
});
