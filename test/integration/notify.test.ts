// Notifiers against a real HTTP server on 127.0.0.1 that checks method, path, headers and body, and
// fails the test on any request it was not told to expect.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildNotifiers, notifyAll, type ShipNotice } from '../../src/ship/notify.ts';

const token = 'ha-secret-token-5f0c9e1d';

interface Expectation {
  path: string;
  headers?: Record<string, string>;
  body: z.ZodType;
  /** What to answer: a status, or 'hang' to never answer. */
  reply: number | 'hang';
}

let server: Server;
let base: string;
let expected: Expectation[];
let problems: string[];
let seen: number;
const hanging: ServerResponse[] = [];

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeEach(async () => {
  expected = [];
  problems = [];
  seen = 0;
  server = createServer(async (req, res) => {
    seen++;
    const exp = expected.shift();
    const text = await readBody(req);
    if (!exp) {
      problems.push(`unexpected ${req.method} ${req.url}`);
      res.writeHead(418).end();
      return;
    }
    if (req.method !== 'POST') problems.push(`method ${req.method}`);
    if (req.url !== exp.path) problems.push(`path ${req.url} instead of ${exp.path}`);
    if (req.headers['content-type'] !== 'application/json') problems.push('content-type');
    for (const [k, v] of Object.entries(exp.headers ?? {})) {
      if (req.headers[k] !== v) problems.push(`header ${k}=${String(req.headers[k])}`);
    }
    if (!exp.headers?.authorization && req.headers.authorization) problems.push('unexpected authorization');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      problems.push('body is not JSON');
    }
    const parsed = exp.body.safeParse(json);
    if (!parsed.success) problems.push(`body: ${parsed.error.message}`);
    if (exp.reply === 'hang') {
      hanging.push(res);
      return;
    }
    res.writeHead(exp.reply, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const res of hanging.splice(0)) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  expect(problems).toEqual([]);
  expect(expected).toEqual([]);
});

const noSleep = { sleep: async () => undefined, timeoutMs: 2_000 };
const ready: ShipNotice = {
  event: 'ready',
  repo: 'acme/shop',
  milestone: 'M1 checkout',
  issuesShipped: 7,
  path: 'local',
  url: 'http://192.0.2.2:5173',
};
const blocked: ShipNotice = {
  event: 'blocked',
  repo: 'acme/shop',
  milestone: 'M1 checkout',
  issuesShipped: 3,
  blocker: 'build fails on blitz/m1 after #12 (`npm test` exit 1)',
  url: 'https://github.com/acme/shop/issues/1#issuecomment-9',
};

const haBody = (title: string, message: z.ZodType, url: string) =>
  z.strictObject({
    title: z.literal(title),
    message,
    data: z.strictObject({ url: z.literal(url), clickAction: z.literal(url) }),
  });

const ha = (service = 'mobile_app_phone') =>
  buildNotifiers({ homeAssistant: { url: `${base}/`, service, token } }, noSleep);

describe('Home Assistant notifier', () => {
  it('posts the ready title, message and preview URL to /api/services/notify/<service> with the bearer token', async () => {
    expected.push({
      path: '/api/services/notify/mobile_app_phone',
      headers: { authorization: `Bearer ${token}` },
      body: haBody(
        'blitz: M1 checkout ready ✅',
        z.literal('7 issues shipped · local dev · tap to preview'),
        ready.url!,
      ),
      reply: 200,
    });
    const { notifiers, problems: p } = ha('notify.mobile_app_phone');
    expect(p).toEqual([]);
    expect(await notifyAll(notifiers, ready)).toEqual([{ ok: true, target: 'home-assistant', attempts: 1 }]);
  });

  it('names the blocker in a BLOCKED notification', async () => {
    expected.push({
      path: '/api/services/notify/mobile_app_phone',
      headers: { authorization: `Bearer ${token}` },
      body: haBody(
        'blitz: M1 checkout BLOCKED ⚠️',
        z.string().includes('build fails on blitz/m1 after #12'),
        blocked.url!,
      ),
      reply: 200,
    });
    const [res] = await notifyAll(ha().notifiers, blocked);
    expect(res?.ok).toBe(true);
  });

  it('retries after a 500 and succeeds on the second attempt', async () => {
    const body = haBody('blitz: M1 checkout ready ✅', z.string(), ready.url!);
    const path = '/api/services/notify/mobile_app_phone';
    const headers = { authorization: `Bearer ${token}` };
    expected.push({ path, headers, body, reply: 500 }, { path, headers, body, reply: 200 });
    const [res] = await notifyAll(ha().notifiers, ready);
    expect(res).toEqual({ ok: true, target: 'home-assistant', attempts: 2 });
  });

  it('gives up after a bounded number of attempts and never puts the token in the error', async () => {
    const body = haBody('blitz: M1 checkout ready ✅', z.string(), ready.url!);
    const path = '/api/services/notify/mobile_app_phone';
    const headers = { authorization: `Bearer ${token}` };
    expected.push(
      { path, headers, body, reply: 503 },
      { path, headers, body, reply: 503 },
      { path, headers, body, reply: 503 },
    );
    const [res] = await notifyAll(ha().notifiers, ready);
    expect(res?.ok).toBe(false);
    expect(res?.attempts).toBe(3);
    const error = res?.ok === false ? res.error : '';
    expect(error).toContain('HTTP 503');
    expect(error).not.toContain(token);
  });

  it('does not retry a 401 and keeps the token out of the error', async () => {
    expected.push({
      path: '/api/services/notify/mobile_app_phone',
      headers: { authorization: `Bearer ${token}` },
      body: haBody('blitz: M1 checkout ready ✅', z.string(), ready.url!),
      reply: 401,
    });
    const [res] = await notifyAll(ha().notifiers, ready);
    expect(res).toMatchObject({ ok: false, attempts: 1 });
    expect(JSON.stringify(res)).not.toContain(token);
  });

  it('times out an attempt that never answers and reports it as a value', async () => {
    const body = haBody('blitz: M1 checkout ready ✅', z.string(), ready.url!);
    const path = '/api/services/notify/mobile_app_phone';
    const headers = { authorization: `Bearer ${token}` };
    expected.push({ path, headers, body, reply: 'hang' }, { path, headers, body, reply: 'hang' });
    const { notifiers } = buildNotifiers(
      { homeAssistant: { url: base, service: 'mobile_app_phone', token } },
      { sleep: async () => undefined, timeoutMs: 150, attempts: 2 },
    );
    const [res] = await notifyAll(notifiers, ready);
    expect(res).toMatchObject({ ok: false, attempts: 2 });
    expect(res?.ok === false && res.error).toContain('did not answer within 150 ms');
  });

  it('refuses a service name that would steer the request to another path, and sends nothing', async () => {
    for (const service of ['../../states', 'notify/../x', 'phone?x=1', 'Phone', '']) {
      const { notifiers, problems: p } = ha(service);
      expect(notifiers, `service ${JSON.stringify(service)}`).toEqual([]);
      expect(p[0]).toMatch(/service must be/);
    }
    expect(seen).toBe(0);
  });

  it('reports a missing token instead of sending an unauthenticated request', async () => {
    const built = buildNotifiers({
      homeAssistant: { url: base, service: 'phone', token: undefined, tokenEnv: 'HA_TOKEN' },
    });
    expect(built.notifiers).toEqual([]);
    expect(built.problems).toEqual([expect.stringContaining('HA_TOKEN')]);
    expect(seen).toBe(0);
  });

  it('reports an unreachable host by origin and errno, without the token', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { notifiers } = buildNotifiers(
      { homeAssistant: { url: `http://127.0.0.1:${port}`, service: 'phone', token } },
      { ...noSleep, attempts: 2 },
    );
    const [res] = await notifyAll(notifiers, ready);
    expect(res).toMatchObject({ ok: false, attempts: 2 });
    const error = res?.ok === false ? res.error : '';
    expect(error).toContain(`could not reach http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(error).not.toContain(token);
  });
});

describe('webhook notifier', () => {
  const hookPath = '/hooks/blitz-4c1d?key=webhook-secret-key';

  it('posts the ready document', async () => {
    expected.push({
      path: hookPath,
      body: z.strictObject({
        event: z.literal('ready'),
        repo: z.literal('acme/shop'),
        milestone: z.literal('M1 checkout'),
        message: z.literal('7 issues shipped · local dev · tap to preview'),
        url: z.literal(ready.url!),
        issuesShipped: z.literal(7),
        path: z.literal('local'),
      }),
      reply: 204,
    });
    const { notifiers } = buildNotifiers({ webhook: { url: `${base}${hookPath}` } }, noSleep);
    expect(await notifyAll(notifiers, ready)).toEqual([{ ok: true, target: 'webhook', attempts: 1 }]);
  });

  it('posts the blocked document with the blocker in the message and no ship path', async () => {
    expected.push({
      path: hookPath,
      body: z.strictObject({
        event: z.literal('blocked'),
        repo: z.literal('acme/shop'),
        milestone: z.literal('M1 checkout'),
        message: z.string().includes('after #12'),
        url: z.literal(blocked.url!),
        issuesShipped: z.literal(3),
        path: z.null(),
      }),
      reply: 200,
    });
    const { notifiers } = buildNotifiers({ webhook: { url: `${base}${hookPath}` } }, noSleep);
    expect((await notifyAll(notifiers, blocked))[0]?.ok).toBe(true);
  });

  it('names the target by origin only, so a secret in the webhook path or query never reaches the error', async () => {
    expected.push({ path: hookPath, body: z.unknown(), reply: 400 });
    const { notifiers } = buildNotifiers({ webhook: { url: `${base}${hookPath}` } }, noSleep);
    const [res] = await notifyAll(notifiers, ready);
    expect(res).toMatchObject({ ok: false, attempts: 1 });
    expect(JSON.stringify(res)).not.toContain('webhook-secret-key');
    expect(JSON.stringify(res)).not.toContain('blitz-4c1d');
  });

  it('sends to both targets and returns one result each, a failure beside a success', async () => {
    expected.push(
      {
        path: '/api/services/notify/phone',
        headers: { authorization: `Bearer ${token}` },
        body: z.unknown(),
        reply: 200,
      },
      { path: hookPath, body: z.unknown(), reply: 404 },
    );
    const { notifiers } = buildNotifiers(
      { homeAssistant: { url: base, service: 'phone', token }, webhook: { url: `${base}${hookPath}` } },
      noSleep,
    );
    // Sent one after the other so the expectation queue matches the order.
    const results = [await notifyAll([notifiers[0]!], ready), await notifyAll([notifiers[1]!], ready)].flat();
    expect(results.map((r) => [r.target, r.ok])).toEqual([
      ['home-assistant', true],
      ['webhook', false],
    ]);
  });
});
