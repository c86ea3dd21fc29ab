// Notifiers against a real HTTP server on 127.0.0.1 that checks method, path, headers and body (each
// service's body against its documented shape, test/support/notify-shapes.ts), and fails the test on
// any request it was not told to expect.
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { noticeTitle } from '../../src/ship/notice.ts';
import { buildNotifiers, type NotifyTargetValue, notifyAll, type RunNotice } from '../../src/ship/notify.ts';
import {
  discordWebhook,
  matrixRoomMessage,
  ntfyHeaders,
  slackMessage,
  teamsWorkflowMessage,
} from '../support/notify-shapes.ts';

const token = 'ha-secret-token-5f0c9e1d';
const allEvents = [
  'started',
  'parked',
  'blocked',
  'needs_person',
  'shipped',
  'failed',
  'review_unclear',
] as const;

interface Expectation {
  path: string;
  method?: 'POST' | 'PUT';
  /** Default application/json. */
  contentType?: string;
  headers?: Record<string, string>;
  headerShape?: z.ZodType;
  /** The JSON body (or, for text/plain, the text) must satisfy this. */
  body: z.ZodType;
  /** What to answer: a status, or 'hang' to never answer. */
  reply: number | 'hang';
  replyHeaders?: Record<string, string>;
}

let server: Server;
let base: string;
let expected: Expectation[];
let problems: string[];
let seen: number;
let received: { headers: IncomingHttpHeaders; body: unknown }[];
const hanging: ServerResponse[] = [];

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeEach(async () => {
  expected = [];
  problems = [];
  received = [];
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
    if (req.method !== (exp.method ?? 'POST')) problems.push(`method ${req.method}`);
    if (req.url !== exp.path) problems.push(`path ${req.url} instead of ${exp.path}`);
    const contentType = exp.contentType ?? 'application/json';
    if (req.headers['content-type'] !== contentType)
      problems.push(`content-type ${req.headers['content-type']}`);
    for (const [k, v] of Object.entries(exp.headers ?? {})) {
      if (req.headers[k] !== v) problems.push(`header ${k}=${String(req.headers[k])}`);
    }
    if (!exp.headers?.authorization && req.headers.authorization) problems.push('unexpected authorization');
    if (exp.headerShape) {
      const h = exp.headerShape.safeParse(req.headers);
      if (!h.success) problems.push(`headers: ${h.error.message}`);
    }
    let body: unknown = text;
    if (contentType === 'application/json') {
      try {
        body = JSON.parse(text);
      } catch {
        problems.push('body is not JSON');
      }
    }
    received.push({ headers: req.headers, body });
    const parsed = exp.body.safeParse(body);
    if (!parsed.success) problems.push(`body: ${parsed.error.message}`);
    if (exp.reply === 'hang') {
      hanging.push(res);
      return;
    }
    res.writeHead(exp.reply, { 'content-type': 'application/json', ...exp.replyHeaders }).end('{}');
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

const sleeps: number[] = [];
const noSleep = {
  sleep: async (ms: number) => {
    sleeps.push(ms);
  },
  timeoutMs: 2_000,
};
const run = { id: '1a2b3c4d', kind: 'blitz' as const, title: 'M1 checkout' };
const shipped: RunNotice = {
  event: 'shipped',
  repo: 'acme/shop',
  run,
  issue: 1,
  sentence: 'every issue closed, build and smoke green, shipped (local)',
  issuesShipped: 7,
  path: 'local',
  url: 'http://192.0.2.2:5173',
};
const blocked: RunNotice = {
  event: 'blocked',
  repo: 'acme/shop',
  run,
  issue: 1,
  sentence: 'build fails on blitz/m1 after #12 (`npm test` exit 1)',
  issuesShipped: 3,
  url: 'https://blitz.example.com/runs/1a2b3c4d',
};
const hostile: RunNotice = {
  ...blocked,
  event: 'failed',
  run: { ...run, title: 'M1 <!channel> @everyone <b>x</b> Δ' },
  sentence: '#12 failed <@U123> & <script>',
};

const ha = (service = 'mobile_app_phone'): NotifyTargetValue[] => [
  { type: 'homeAssistant', name: 'home-assistant', events: allEvents, url: `${base}/`, service, token },
];

const haBody = (title: string, message: z.ZodType, url: string) =>
  z.strictObject({
    title: z.literal(title),
    message,
    data: z.strictObject({ url: z.literal(url), clickAction: z.literal(url) }),
  });

describe('Home Assistant notifier', () => {
  it('posts the title, message (run, issue, sentence) and link to /api/services/notify/<service> with the bearer token', async () => {
    expected.push({
      path: '/api/services/notify/mobile_app_phone',
      headers: { authorization: `Bearer ${token}` },
      body: haBody(
        'blitz: M1 checkout ready ✅',
        z.literal(
          'Every issue closed, build and smoke green, shipped (local). acme/shop#1 · run 1a2b3c4d · 7 issues shipped · local dev',
        ),
        shipped.url!,
      ),
      reply: 200,
    });
    const { notifiers, problems: p } = buildNotifiers(ha('notify.mobile_app_phone'), noSleep);
    expect(p).toEqual([]);
    expect(await notifyAll(notifiers, shipped)).toEqual([
      { ok: true, target: 'home-assistant', attempts: 1 },
    ]);
  });

  it('retries after a 500 and succeeds on the second attempt', async () => {
    const body = haBody('blitz: M1 checkout ready ✅', z.string(), shipped.url!);
    const path = '/api/services/notify/mobile_app_phone';
    const headers = { authorization: `Bearer ${token}` };
    expected.push({ path, headers, body, reply: 500 }, { path, headers, body, reply: 200 });
    const [res] = await notifyAll(buildNotifiers(ha(), noSleep).notifiers, shipped);
    expect(res).toEqual({ ok: true, target: 'home-assistant', attempts: 2 });
  });

  it('gives up after a bounded number of attempts and never puts the token in the error', async () => {
    const body = haBody('blitz: M1 checkout ready ✅', z.string(), shipped.url!);
    const path = '/api/services/notify/mobile_app_phone';
    const headers = { authorization: `Bearer ${token}` };
    expected.push(
      { path, headers, body, reply: 503 },
      { path, headers, body, reply: 503 },
      { path, headers, body, reply: 503 },
    );
    const [res] = await notifyAll(buildNotifiers(ha(), noSleep).notifiers, shipped);
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
      body: haBody('blitz: M1 checkout ready ✅', z.string(), shipped.url!),
      reply: 401,
    });
    const [res] = await notifyAll(buildNotifiers(ha(), noSleep).notifiers, shipped);
    expect(res).toMatchObject({ ok: false, attempts: 1 });
    expect(JSON.stringify(res)).not.toContain(token);
  });

  it('times out an attempt that never answers and reports it as a value', async () => {
    const body = haBody('blitz: M1 checkout ready ✅', z.string(), shipped.url!);
    const path = '/api/services/notify/mobile_app_phone';
    const headers = { authorization: `Bearer ${token}` };
    expected.push({ path, headers, body, reply: 'hang' }, { path, headers, body, reply: 'hang' });
    // The timeout fires once the server holds the attempt's request (time is the test's, not the
    // host's: on a loaded host a wall-clock 150 ms could end before the request even arrived).
    const timeout = () => {
      const timer = new AbortController();
      const held = hanging.length + 1;
      const fire = () => (hanging.length >= held ? timer.abort() : setImmediate(fire));
      fire();
      return timer.signal;
    };
    const { notifiers } = buildNotifiers(ha(), {
      sleep: async () => undefined,
      timeoutMs: 150,
      attempts: 2,
      timeout,
    });
    const [res] = await notifyAll(notifiers, shipped);
    expect(hanging).toHaveLength(2);
    expect(res).toMatchObject({ ok: false, attempts: 2 });
    expect(res?.ok === false && res.error).toContain('did not answer within 150 ms');
  });

  it('refuses a service name that would steer the request to another path, and sends nothing', async () => {
    for (const service of ['../../states', 'notify/../x', 'phone?x=1', 'Phone', '']) {
      const { notifiers, problems: p } = buildNotifiers(ha(service));
      expect(notifiers, `service ${JSON.stringify(service)}`).toEqual([]);
      expect(p[0]).toMatch(/service must be/);
    }
    expect(seen).toBe(0);
  });

  it('reports a missing token instead of sending an unauthenticated request', async () => {
    const built = buildNotifiers([
      {
        type: 'homeAssistant',
        name: 'phone',
        events: allEvents,
        url: base,
        service: 'phone',
        token: undefined,
        tokenEnv: 'HA_TOKEN',
      },
    ]);
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
      [
        {
          type: 'homeAssistant',
          name: 'ha',
          events: allEvents,
          url: `http://127.0.0.1:${port}`,
          service: 'phone',
          token,
        },
      ],
      { ...noSleep, attempts: 2 },
    );
    const [res] = await notifyAll(notifiers, shipped);
    expect(res).toMatchObject({ ok: false, attempts: 2 });
    const error = res?.ok === false ? res.error : '';
    expect(error).toContain(`could not reach http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(error).not.toContain(token);
  });
});

describe('webhook notifier', () => {
  const hookPath = '/hooks/blitz-4c1d?key=webhook-secret-key';
  const hook = (events: readonly (typeof allEvents)[number][] = allEvents): NotifyTargetValue[] => [
    { type: 'webhook', name: 'webhook', events, url: `${base}${hookPath}` },
  ];

  it('posts the shipped document with the run, the issue, the sentence and the link', async () => {
    expected.push({
      path: hookPath,
      body: z.strictObject({
        event: z.literal('shipped'),
        repo: z.literal('acme/shop'),
        run: z.strictObject({
          id: z.literal('1a2b3c4d'),
          kind: z.literal('blitz'),
          title: z.literal('M1 checkout'),
        }),
        milestone: z.literal('M1 checkout'),
        issue: z.literal(1),
        sentence: z.literal('Every issue closed, build and smoke green, shipped (local).'),
        message: z.string().includes('acme/shop#1 · run 1a2b3c4d'),
        url: z.literal(shipped.url!),
        issuesShipped: z.literal(7),
        path: z.literal('local'),
        command: z.null(),
        resetAt: z.null(),
      }),
      reply: 204,
    });
    const { notifiers } = buildNotifiers(hook(), noSleep);
    expect(await notifyAll(notifiers, shipped)).toEqual([{ ok: true, target: 'webhook', attempts: 1 }]);
  });

  it('posts the blocked document with the blocker and no ship path', async () => {
    expected.push({
      path: hookPath,
      body: z.looseObject({
        event: z.literal('blocked'),
        sentence: z.string().includes('after #12'),
        url: z.literal(blocked.url!),
        issuesShipped: z.literal(3),
        path: z.null(),
      }),
      reply: 200,
    });
    const { notifiers } = buildNotifiers(hook(), noSleep);
    expect((await notifyAll(notifiers, blocked))[0]?.ok).toBe(true);
  });

  it('sends only the events a target chose', async () => {
    const { notifiers } = buildNotifiers(hook(['shipped']), noSleep);
    expect(await notifyAll(notifiers, blocked)).toEqual([]);
    expect(seen).toBe(0);
  });

  it('names the target by origin only, so a secret in the webhook path or query never reaches the error', async () => {
    expected.push({ path: hookPath, body: z.unknown(), reply: 400 });
    const { notifiers } = buildNotifiers(hook(), noSleep);
    const [res] = await notifyAll(notifiers, shipped);
    expect(res).toMatchObject({ ok: false, attempts: 1 });
    expect(JSON.stringify(res)).not.toContain('webhook-secret-key');
    expect(JSON.stringify(res)).not.toContain('blitz-4c1d');
  });

  it('never follows a redirect: a 302 is a failure naming the origin, and the new location gets nothing', async () => {
    expected.push({
      path: hookPath,
      body: z.unknown(),
      reply: 302,
      replyHeaders: { location: `${base}/elsewhere` },
    });
    const { notifiers } = buildNotifiers(hook(), { ...noSleep, attempts: 1 });
    const [res] = await notifyAll(notifiers, shipped);
    expect(res).toMatchObject({ ok: false, attempts: 1 });
    expect(res?.ok === false && res.error).toContain(base);
    expect(seen).toBe(1);
  });
});

describe('chat notifiers post each service’s documented shape', () => {
  const secretPath = '/services/T000/B000/XXXXsecretXXXX';

  it('Slack: Block Kit with a text fallback, a header, the sentence, where, and a link button', async () => {
    expected.push({ path: secretPath, body: slackMessage, reply: 200 });
    const { notifiers } = buildNotifiers(
      [{ type: 'slack', name: 'slack', events: allEvents, url: `${base}${secretPath}` }],
      noSleep,
    );
    expect(await notifyAll(notifiers, blocked)).toEqual([{ ok: true, target: 'slack', attempts: 1 }]);
    const body = slackMessage.parse(received[0]!.body);
    expect(body.text).toContain('blitz: M1 checkout BLOCKED');
    expect(JSON.stringify(body.blocks)).toContain('acme/shop#1 · run 1a2b3c4d');
    expect(body.blocks.at(-1)).toMatchObject({ type: 'actions', elements: [{ url: blocked.url }] });
  });

  it('Slack: run text cannot mention a channel or a user', async () => {
    expected.push({ path: secretPath, body: slackMessage, reply: 200 });
    const { notifiers } = buildNotifiers(
      [{ type: 'slack', name: 'slack', events: allEvents, url: `${base}${secretPath}` }],
      noSleep,
    );
    await notifyAll(notifiers, hostile);
    const blocks = JSON.stringify(slackMessage.parse(received[0]!.body).blocks.slice(1));
    expect(blocks).not.toContain('<!channel>');
    expect(blocks).not.toContain('<@U123>');
    expect(blocks).toContain('&lt;@U123&gt; &amp;');
  });

  it('Discord: one embed within its limits, coloured by event, that pings no one', async () => {
    expected.push({ path: '/api/webhooks/1/tok', body: discordWebhook, reply: 204 });
    const { notifiers } = buildNotifiers(
      [{ type: 'discord', name: 'discord', events: allEvents, url: `${base}/api/webhooks/1/tok` }],
      noSleep,
    );
    expect(await notifyAll(notifiers, hostile)).toEqual([{ ok: true, target: 'discord', attempts: 1 }]);
    const body = discordWebhook.parse(received[0]!.body);
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.embeds?.[0]).toMatchObject({
      color: 0xed4245,
      url: hostile.url,
      description: '#12 failed <@U123> & <script>.',
    });
  });

  it('Discord: a 429 waits what Retry-After says, then succeeds', async () => {
    sleeps.length = 0;
    expected.push(
      { path: '/api/webhooks/1/tok', body: discordWebhook, reply: 429, replyHeaders: { 'retry-after': '7' } },
      { path: '/api/webhooks/1/tok', body: discordWebhook, reply: 204 },
    );
    const { notifiers } = buildNotifiers(
      [{ type: 'discord', name: 'discord', events: allEvents, url: `${base}/api/webhooks/1/tok` }],
      noSleep,
    );
    expect(await notifyAll(notifiers, shipped)).toEqual([{ ok: true, target: 'discord', attempts: 2 }]);
    expect(sleeps).toEqual([7000]);
  });

  it('Teams: a Workflows message with one Adaptive Card: title, sentence, facts, Open action', async () => {
    expected.push({
      path: '/workflows/abc/triggers/manual/paths/invoke?sig=s3cret',
      body: teamsWorkflowMessage,
      reply: 202,
    });
    const { notifiers } = buildNotifiers(
      [
        {
          type: 'teams',
          name: 'teams',
          events: allEvents,
          url: `${base}/workflows/abc/triggers/manual/paths/invoke?sig=s3cret`,
        },
      ],
      noSleep,
    );
    expect(await notifyAll(notifiers, shipped)).toEqual([{ ok: true, target: 'teams', attempts: 1 }]);
    const card = teamsWorkflowMessage.parse(received[0]!.body).attachments[0]!.content;
    expect(card.body[0]).toMatchObject({ type: 'TextBlock', text: noticeTitle(shipped) });
    expect(JSON.stringify(card.body)).toContain('"title":"Issue","value":"#1"');
    expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open preview', url: shipped.url }]);
  });

  it('Matrix: PUT m.room.message into the room with the token, the same transaction id on a retry', async () => {
    const matrixToken = 'syt_matrix_secret_token';
    const shape = (reply: number): Expectation => ({
      method: 'PUT',
      path: '',
      headers: { authorization: `Bearer ${matrixToken}` },
      body: matrixRoomMessage,
      reply,
    });
    // The transaction id is content-derived: compute the path the first request used.
    const { notifiers } = buildNotifiers(
      [
        {
          type: 'matrix',
          name: 'matrix',
          events: allEvents,
          homeserver: `${base}/`,
          roomId: '!room42:example.org',
          token: matrixToken,
          tokenEnv: 'MATRIX_TOKEN',
        },
      ],
      noSleep,
    );
    const { matrixTxnId } = await import('../../src/ship/notify-matrix.ts');
    const path = `/_matrix/client/v3/rooms/!room42%3Aexample.org/send/m.room.message/${matrixTxnId(hostile)}`;
    expected.push({ ...shape(502), path }, { ...shape(200), path });
    const [res] = await notifyAll(notifiers, hostile);
    expect(res).toEqual({ ok: true, target: 'matrix', attempts: 2 });
    const body = matrixRoomMessage.parse(received[0]!.body);
    expect(body.body).toContain('#12 failed');
    expect(body.formatted_body).toContain('&lt;script&gt;');
    expect(body.formatted_body).not.toContain('<script>');
    expect(received[0]!.body).toEqual(received[1]!.body);
  });

  it('Matrix: a room alias or a path in the room id is refused before anything is sent', () => {
    for (const roomId of ['#alias:example.org', '!a/../../x:example.org?y', 'room']) {
      const { notifiers, problems: p } = buildNotifiers([
        { type: 'matrix', name: 'm', events: allEvents, homeserver: base, roomId, token: 't', tokenEnv: 'T' },
      ]);
      expect(notifiers, roomId).toEqual([]);
      expect(p[0]).toContain('room id');
    }
    expect(seen).toBe(0);
  });

  it('ntfy: the message as text, Title (RFC 2047 when not ASCII), Priority by event, Tags and Click', async () => {
    expected.push({
      path: '/blitz-topic-9f2',
      contentType: 'text/plain; charset=utf-8',
      headers: { priority: 'high', click: blocked.url!, authorization: 'Bearer tk_ntfy_secret' },
      headerShape: ntfyHeaders,
      body: z.string().includes('Build fails on blitz/m1 after #12').includes('acme/shop#1 · run 1a2b3c4d'),
      reply: 200,
    });
    const { notifiers } = buildNotifiers(
      [
        {
          type: 'ntfy',
          name: 'ntfy',
          events: allEvents,
          url: `${base}/blitz-topic-9f2`,
          token: 'tk_ntfy_secret',
          tokenEnv: 'NTFY_TOKEN',
        },
      ],
      noSleep,
    );
    expect(await notifyAll(notifiers, blocked)).toEqual([{ ok: true, target: 'ntfy', attempts: 1 }]);
    const title = String(received[0]!.headers.title);
    const decoded = /^=\?UTF-8\?B\?(.+)\?=$/.exec(title);
    expect(decoded && Buffer.from(decoded[1]!, 'base64').toString('utf8')).toBe(noticeTitle(blocked));
    expect(received[0]!.headers.tags).toBe('blitz,warning');
  });
});

describe('several targets', () => {
  it('sends to each that takes the event and returns one result each, a failure beside a success', async () => {
    expected.push(
      {
        path: '/api/services/notify/phone',
        headers: { authorization: `Bearer ${token}` },
        body: z.unknown(),
        reply: 200,
      },
      { path: '/hook', body: z.unknown(), reply: 404 },
    );
    const { notifiers } = buildNotifiers(
      [
        {
          type: 'homeAssistant',
          name: 'home-assistant',
          events: allEvents,
          url: base,
          service: 'phone',
          token,
        },
        { type: 'webhook', name: 'webhook', events: allEvents, url: `${base}/hook` },
        { type: 'slack', name: 'quiet-slack', events: ['failed'], url: `${base}/never` },
      ],
      noSleep,
    );
    // Sent one after the other so the expectation queue matches the order.
    const results = [
      await notifyAll([notifiers[0]!], shipped),
      await notifyAll(notifiers.slice(1), shipped),
    ].flat();
    expect(results.map((r) => [r.target, r.ok])).toEqual([
      ['home-assistant', true],
      ['webhook', false],
    ]);
  });

  it('leaves out a target whose secret variable is unset, and says which variable', () => {
    const built = buildNotifiers([
      { type: 'slack', name: 'slack', events: allEvents, url: undefined, urlEnv: 'SLACK_WEBHOOK_URL' },
      {
        type: 'matrix',
        name: 'matrix',
        events: allEvents,
        homeserver: base,
        roomId: '!r:x.org',
        token: undefined,
        tokenEnv: 'MATRIX_TOKEN',
      },
    ]);
    expect(built.notifiers).toEqual([]);
    expect(built.problems).toEqual([
      expect.stringContaining('SLACK_WEBHOOK_URL'),
      expect.stringContaining('MATRIX_TOKEN'),
    ]);
  });
});
