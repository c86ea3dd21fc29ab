// The status pages through the real app over a real SQLite file: access (off, bearer, login cookie),
// escaping of hostile titles on every page, the run, attempt, report and stats content, and SSE.
import { afterEach, describe, expect, it } from 'vitest';
import { createBudgetTracker } from '../../src/forges/rate-budget.ts';
import { finishedDashboard, finishedRunId, hostileTitle, liveRunId } from '../fixtures/runs/finished-run.ts';
import { createStatusApp, listen, type StatusApp, statusToken } from '../fixtures/runs/status-app.ts';
import { until } from '../support/until.ts';

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
const pages = [
  '/',
  `/runs/${finishedRunId}`,
  `/runs/${finishedRunId}/attempts/3`,
  `/runs/${finishedRunId}/report.html`,
  '/stats',
];

describe('status page access', () => {
  it('is off without STATUS_TOKEN: every page answers 404 "off" and shows no run', async () => {
    const { app } = await setup({ token: undefined });
    for (const path of [...pages, '/login', '/status/assets/mermaid.min.js']) {
      const res = await app.request(path, { headers: bearer });
      expect(res.status, path).toBe(404);
      const body = await res.text();
      expect(body, path).toContain('status page is off');
      expect(body, path).not.toContain('Parse CSV');
    }
    // The webhook and health routes are unaffected by the status pages mounted at the root.
    expect((await app.request('/healthz')).status).toBe(200);
  });

  it('refuses every page without the token, and with a wrong bearer token, before reading a run', async () => {
    const { app } = await setup();
    for (const path of pages) {
      const plain = await app.request(path);
      expect(plain.status, path).toBe(401);
      expect(plain.headers.get('www-authenticate')).toContain('Bearer');
      const browser = await app.request(path, { headers: { accept: 'text/html' } });
      expect(browser.status, path).toBe(303);
      expect(browser.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
      const wrong = await app.request(path, {
        headers: { authorization: 'Bearer not-the-token', accept: 'text/html' },
      });
      expect(wrong.status, path).toBe(401);
      expect(await wrong.text()).not.toContain('Parse CSV');
    }
  });

  it('logs in with the form: an HttpOnly SameSite=Strict cookie without the token opens the pages', async () => {
    const { app } = await setup();
    const bad = await app.request('/login', {
      method: 'POST',
      body: new URLSearchParams({ token: 'nope', next: '/stats' }),
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();
    const good = await app.request('/login', {
      method: 'POST',
      body: new URLSearchParams({ token: statusToken, next: '//evil.example/steal' }),
    });
    expect(good.status).toBe(303);
    expect(good.headers.get('location')).toBe('/');
    const cookie = good.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^blitz_status=\d+\.[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).not.toContain(statusToken);
    const pair = cookie.split(';')[0]!;
    const ok = await app.request('/', { headers: { cookie: pair } });
    expect(ok.status).toBe(200);
    const tampered = await app.request('/', { headers: { cookie: `${pair.slice(0, -2)}AA` } });
    expect(tampered.status).toBe(401);
  });
});

describe('status pages', () => {
  it('lists runs with the active one first', async () => {
    const { app } = await setup();
    const body = await (await app.request('/', { headers: bearer })).text();
    expect(body.indexOf(`data-run="${liveRunId}"`)).toBeGreaterThan(0);
    expect(body.indexOf(`data-run="${liveRunId}"`)).toBeLessThan(body.indexOf(`data-run="${finishedRunId}"`));
    expect(body).toContain('<td>3/5</td>');
    expect(body).toContain('M1 &lt;b&gt;launch&lt;/b&gt;');
  });

  it("shows each installation's rate-limit windows, its writes and the pace runs keep on it", async () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    const budget = createBudgetTracker({ now: () => now });
    const reset = String(now / 1000 + 1800);
    const headers = (resource: string, remaining: number, limit: number) => ({
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': reset,
      'x-ratelimit-resource': resource,
    });
    // Installation 7 has a healthy core window; installation 9 has spent its core budget.
    budget.observe('github:7', { method: 'GET', status: 200, rateHeaders: headers('core', 4200, 5000) });
    budget.observe('github:7', { method: 'POST', status: 200, rateHeaders: headers('graphql', 4990, 5000) });
    budget.observe('github:7', { method: 'POST', status: 201, rateHeaders: headers('core', 4199, 5000) });
    budget.observe('github:9', { method: 'GET', status: 200, rateHeaders: headers('core', 12, 5000) });
    const { app } = await setup({ budget });
    const body = await (await app.request('/', { headers: bearer })).text();
    const row = (key: string) =>
      /<tr data-budget="([^"]+)">[\s\S]*?<\/tr>/g.exec(
        body.slice(body.indexOf(`data-budget="${key}"`) - 4),
      )?.[0] ?? '';
    expect(row('github:7')).toContain('<div data-resource="core">4199 / 5000</div>');
    expect(row('github:7')).toContain('<div data-resource="graphql">4990 / 5000</div>');
    expect(row('github:7')).toContain('2026-12-01 12:30');
    expect(row('github:7')).toContain('1 / 80, 1 / 500');
    expect(row('github:7')).toContain('data-pace="full"');
    expect(row('github:9')).toContain('data-pace="slowed"');
    expect(row('github:9')).toContain(
      'core rate limit nearly spent (12/5000): no new sessions until it resets in 30 min',
    );
  });

  it('shows the run: Mermaid source coloured by state, the issue table, layers and attempts, titles escaped', async () => {
    const { app } = await setup();
    const res = await app.request(`/runs/${finishedRunId}`, { headers: bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const body = await res.text();
    expect(body).toContain('i3[&quot;#35;3 #60;#47;script#62;');
    expect(body).toMatch(/i1\[[^\n]*\]:::closed/);
    expect(body).toMatch(/i4\[[^\n]*\]:::failed/);
    expect(body).toContain('i1 --&gt; i3');
    expect(body).not.toContain(hostileTitle);
    expect(body).not.toContain('<script>window.__pwned');
    expect(body).toContain('&lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;');
    expect((body.match(/<tr data-issue=/g) ?? []).length).toBe(5);
    expect((body.match(/<tr data-attempt=/g) ?? []).length).toBe(9);
    expect(body).toContain(`data-live="/runs/${finishedRunId}/events"`);
  });

  it('falls back to attempt titles and no edges when no dashboard was published since start', async () => {
    const { app } = await setup({ publishDashboard: false });
    const body = await (await app.request(`/runs/${finishedRunId}`, { headers: bearer })).text();
    expect(body).toContain('Parse CSV headers');
    expect(body).toContain('(title not known since restart)');
    expect(body).not.toContain('--&gt;');
  });

  it('after a restart draws titles and edges from the graph the last reconcile kept in the run', async () => {
    const { app, runs } = await setup({ publishDashboard: false });
    const run = await runs.getRun(finishedRunId);
    const graph = finishedDashboard().issues.map((i) => ({
      number: i.number,
      title: i.title,
      state: i.state,
      ...(i.epic ? { epic: true } : {}),
      blockedBy: i.blockedBy,
    }));
    await runs.updateRun(finishedRunId, { progress: { ...run!.progress, graph } });
    const body = await (await app.request(`/runs/${finishedRunId}`, { headers: bearer })).text();
    expect(body).not.toContain('(title not known since restart)');
    expect(body).toContain('i1 --&gt; i3');
    expect(body).not.toContain(hostileTitle);
  });

  it('replays an attempt: prompt, tool calls collapsed with their results, final response, tokens', async () => {
    const { app } = await setup();
    const body = await (await app.request(`/runs/${finishedRunId}/attempts/3`, { headers: bearer })).text();
    expect((body.match(/<details class="tool/g) ?? []).length).toBe(4);
    expect(body).toContain('data-tool="Edit"');
    expect(body).toContain('<details class="tool error" data-tool="Bash">');
    expect(body).toContain('npm test -- &lt;script&gt;alert(');
    expect(body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(body).toContain('6300 in · 210 out · 300 cache');
    expect(body).toContain('&lt;/script&gt;&lt;b&gt;hostile&lt;/b&gt;');
    const unreadable = await (
      await app.request(`/runs/${finishedRunId}/attempts/1`, { headers: bearer })
    ).text();
    expect(unreadable).toContain('id="no-log"');
    expect((await app.request(`/runs/${finishedRunId}/attempts/99`, { headers: bearer })).status).toBe(404);
    expect((await app.request(`/runs/${finishedRunId}/attempts/x`, { headers: bearer })).status).toBe(404);
    expect((await app.request('/runs/nope', { headers: bearer })).status).toBe(404);
  });

  it('makes a self-contained report: inline CSS and Mermaid, script hashes in the CSP, a download name', async () => {
    const { app } = await setup();
    const res = await app.request(`/runs/${finishedRunId}/report.html?download=1`, { headers: bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="blitz-run-run-m1-finished.html"',
    );
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp.match(/'sha256-/g)?.length).toBe(2);
    const body = await res.text();
    expect(body).not.toMatch(/<script[^>]+src=/);
    expect(body).not.toMatch(/<link[^>]+href=/);
    expect(body).toContain('<pre class="mermaid" id="dag">');
    expect(body).toContain('<details class="attempt" data-attempt="3">');
    expect(body).not.toContain('<script>window.__pwned');
    expect(body.length).toBeGreaterThan(1_000_000);
  });

  it('shows stats with the 20–80 % band marked and the issues waiting', async () => {
    const { app } = await setup();
    const body = await (await app.request('/stats', { headers: bearer })).text();
    expect(body).toContain('data-entry="local-qwen" data-tier="execution" data-band="yes"');
    expect(body).toContain('data-entry="sonnet" data-tier="execution" data-band="no"');
    expect(body).toMatch(/<tr data-issue="4">.*a person<\/td>/);
    const oneRun = await (await app.request(`/stats?run=${liveRunId}`, { headers: bearer })).text();
    expect(oneRun).toContain('0 attempts');
  });

  it('streams a run-changed event when the run is published, and only for that run', async () => {
    const { app, events } = await setup();
    const server = await listen(app);
    cleanups.push(server.close);
    const controller = new AbortController();
    cleanups.push(async () => controller.abort());
    const res = await fetch(`${server.url}/runs/${finishedRunId}/events`, {
      headers: bearer,
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}`);
        text += decoder.decode(value);
      }
    };
    await readUntil('event: hello');
    events.publish(liveRunId);
    events.publish(finishedRunId);
    await readUntil('event: run-changed');
    expect(text).toContain(`data: {"runId":"${finishedRunId}"}`);
    expect(text).not.toContain(liveRunId);
  });

  it('caps open streams, and a closed stream frees its place', async () => {
    const { app } = await setup({ maxStreams: 1 });
    const server = await listen(app);
    cleanups.push(server.close);
    const open = async () => {
      const controller = new AbortController();
      const res = await fetch(`${server.url}/runs/${finishedRunId}/events`, {
        headers: bearer,
        signal: controller.signal,
      });
      return { res, controller };
    };
    const first = await open();
    expect(first.res.status).toBe(200);
    await first.res.body!.getReader().read();
    const second = await open();
    expect(second.res.status).toBe(503);
    first.controller.abort();
    // The server sees the close asynchronously: poll until the place is free again.
    const third = await until(
      'the place freed',
      async () => {
        const next = await open();
        return next.res.status === 503 ? undefined : next;
      },
      { timeoutMs: 2_500, everyMs: 50 },
    );
    expect(third.res.status).toBe(200);
    third.controller.abort();
    expect((await app.request('/runs/nope/events', { headers: bearer })).status).toBe(404);
  });
});
