// Every named state's notice through every notifier, to a real loopback server that checks each
// service's documented shape (test/support/notify-shapes.ts) and that each message carries the run,
// the issue, the sentence, the command that continues and the link. Any request it was not expecting
// fails the test.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildNotifiers, type NotifyTargetValue, notifyAll, type RunNotice } from '../../src/ship/notify.ts';
import { runNoticeOf } from '../../src/ship/run-notices.ts';
import {
  discordWebhook,
  matrixRoomMessage,
  ntfyHeaders,
  slackMessage,
  teamsWorkflowMessage,
} from '../support/notify-shapes.ts';

const allEvents = [
  'started',
  'parked',
  'blocked',
  'needs_person',
  'shipped',
  'failed',
  'review_unclear',
] as const;
const token = 'matrix-token-7a1f';
const haToken = 'ha-token-2c9e';

interface Seen {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  text: string;
}
let server: Server;
let base: string;
const seen: Seen[] = [];

const webhookShape = z.strictObject({
  event: z.enum(allEvents),
  repo: z.string(),
  run: z.strictObject({ id: z.string(), kind: z.enum(['blitz', 'fleet', 'plan']), title: z.string() }),
  milestone: z.string(),
  issue: z.number().nullable(),
  sentence: z.string().min(1),
  message: z.string().min(1),
  url: z.url().nullable(),
  issuesShipped: z.number(),
  path: z.enum(['deploy', 'local']).nullable(),
  command: z.string().nullable(),
  resetAt: z.iso.datetime().nullable(),
});
const haShape = z.strictObject({
  title: z.string().min(1),
  message: z.string().min(1),
  data: z.strictObject({ url: z.url(), clickAction: z.url() }).optional(),
});

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    seen.push({
      path: req.url ?? '',
      method: req.method ?? '',
      headers: req.headers,
      text: Buffer.concat(chunks).toString('utf8'),
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"event_id":"$1"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const targets = (): NotifyTargetValue[] => [
  { type: 'slack', name: 'slack', events: allEvents, url: `${base}/slack` },
  { type: 'discord', name: 'discord', events: allEvents, url: `${base}/discord` },
  { type: 'teams', name: 'teams', events: allEvents, url: `${base}/teams` },
  { type: 'webhook', name: 'webhook', events: allEvents, url: `${base}/webhook` },
  { type: 'ntfy', name: 'ntfy', events: allEvents, url: `${base}/ntfy/blitz` },
  {
    type: 'matrix',
    name: 'matrix',
    events: allEvents,
    homeserver: `${base}/mx`,
    roomId: '!room:example.org',
    token,
    tokenEnv: 'MX',
  },
  {
    type: 'homeAssistant',
    name: 'ha',
    events: allEvents,
    url: `${base}/ha`,
    service: 'mobile_app_phone',
    token: haToken,
  },
];

// Built the one way the orchestrator builds a run's notice (runNoticeOf), with the sentences it writes.
const run = {
  id: '1a2b3c4d',
  kind: 'blitz',
  milestoneTitle: 'M1 checkout',
  repo: 'acme/shop',
  triggerIssue: 1,
} as const;
const runUrl = 'https://blitz.example.com/runs/1a2b3c4d';
const more = { issuesShipped: 4, publicUrl: 'https://blitz.example.com' };
const reset = '2026-12-01T15:00:00.000Z';

const cases: [string, RunNotice, { command?: string; issue: number; link: string; words: string }][] = [
  [
    'started',
    runNoticeOf(run, 'started', 'wendy started a blitz of M1 checkout', { ...more, command: '/blitz pause' }),
    { command: '/blitz pause', issue: 1, link: runUrl, words: 'wendy started a blitz of M1 checkout' },
  ],
  [
    'parked',
    runNoticeOf(run, 'parked', 'provider limit reached; the tool says it resets at 2026-12-01 15:00 UTC', {
      ...more,
      command: '/blitz resume',
      resetAt: reset,
    }),
    { command: '/blitz resume', issue: 1, link: runUrl, words: 'Provider limit reached' },
  ],
  [
    'blocked',
    runNoticeOf(run, 'blocked', 'the forge answered 401 to the bot; fix it, then resume', {
      ...more,
      issue: 9,
      command: '/blitz resume',
    }),
    { command: '/blitz resume', issue: 9, link: runUrl, words: 'answered 401' },
  ],
  [
    'needs_person',
    runNoticeOf(run, 'needs_person', '#12 is held: no progress after 6 nudges', {
      ...more,
      issue: 12,
      command: '/blitz retry #12',
    }),
    {
      command: '/blitz retry #12',
      issue: 12,
      link: runUrl,
      words: '#12 is held: no progress after 6 nudges',
    },
  ],
  [
    'failed',
    runNoticeOf(run, 'failed', '#12 failed: 3 attempts unsolved', {
      ...more,
      issue: 12,
      command: '/blitz retry #12',
    }),
    { command: '/blitz retry #12', issue: 12, link: runUrl, words: '#12 failed' },
  ],
  [
    'review_unclear',
    runNoticeOf(run, 'review_unclear', 'the integration review is unclear: no reviewer answered', {
      ...more,
      command: '/blitz accept-review (or /blitz review to run it again)',
    }),
    { command: '/blitz accept-review', issue: 1, link: runUrl, words: 'integration review is unclear' },
  ],
  [
    'shipped',
    runNoticeOf(run, 'shipped', 'every issue closed, build and smoke green, deployed and answering', {
      ...more,
      path: 'deploy',
      url: 'https://shop.example.com/',
    }),
    { issue: 1, link: 'https://shop.example.com/', words: 'deployed and answering' },
  ],
  [
    'ship failed',
    runNoticeOf(run, 'blocked', 'the preview is not live: nothing answered on port 5173', {
      ...more,
      command: '/blitz resume',
    }),
    { command: '/blitz resume', issue: 1, link: runUrl, words: 'preview is not live' },
  ],
];

describe('every named state reaches every notifier with its command and link', () => {
  it.each(cases)('%s', async (_name, notice, want) => {
    seen.length = 0;
    const { notifiers, problems } = buildNotifiers(targets(), {
      sleep: async () => undefined,
      timeoutMs: 5000,
    });
    expect(problems).toEqual([]);
    const results = await notifyAll(notifiers, notice);
    expect(results.every((r) => r.ok)).toBe(true);
    const byPath = (prefix: string) => {
      const hits = seen.filter((s) => s.path.startsWith(prefix));
      expect(hits, prefix).toHaveLength(1);
      return hits[0]!;
    };
    expect(seen).toHaveLength(7);
    const where = `acme/shop#${want.issue} · run 1a2b3c4d`;
    const checks: [string, unknown][] = [];

    const slack = slackMessage.parse(JSON.parse(byPath('/slack').text));
    checks.push(['slack', JSON.stringify(slack)]);
    const discord = discordWebhook.parse(JSON.parse(byPath('/discord').text));
    checks.push(['discord', JSON.stringify(discord)]);
    const teams = teamsWorkflowMessage.parse(JSON.parse(byPath('/teams').text));
    checks.push(['teams', JSON.stringify(teams)]);
    const hook = webhookShape.parse(JSON.parse(byPath('/webhook').text));
    checks.push(['webhook', JSON.stringify(hook)]);
    const ntfy = byPath('/ntfy/blitz');
    ntfyHeaders.parse(ntfy.headers);
    checks.push(['ntfy', ntfy.text]);
    const mx = byPath('/mx/_matrix/client/v3/rooms/');
    expect(mx.method).toBe('PUT');
    expect(mx.headers.authorization).toBe(`Bearer ${token}`);
    checks.push(['matrix', JSON.stringify(matrixRoomMessage.parse(JSON.parse(mx.text)))]);
    const ha = byPath('/ha/api/services/notify/mobile_app_phone');
    expect(ha.headers.authorization).toBe(`Bearer ${haToken}`);
    checks.push(['homeAssistant', JSON.stringify(haShape.parse(JSON.parse(ha.text)))]);

    for (const [service, text] of checks) {
      const t = String(text);
      expect(t.toLowerCase(), `${service}: the sentence`).toContain(want.words.toLowerCase());
      if (service !== 'teams' && service !== 'webhook') expect(t, `${service}: where`).toContain(where);
      if (service !== 'ntfy') expect(t, `${service}: the link`).toContain(want.link);
      if (want.command) expect(t, `${service}: the command`).toContain(want.command);
      else expect(t, `${service}: no command`).not.toContain('To continue');
    }
    // The link on ntfy is its Click header; the webhook names the issue and the command as fields.
    expect(ntfy.headers.click).toBe(want.link);
    expect(hook.issue).toBe(want.issue);
    if (want.command) expect(hook.command).toContain(want.command);
    else expect(hook.command).toBeNull();
  });

  it('a parked notice carries the reset time in every message', async () => {
    seen.length = 0;
    const { notifiers } = buildNotifiers(targets(), { sleep: async () => undefined });
    await notifyAll(
      notifiers,
      runNoticeOf(run, 'parked', 'provider limit reached', {
        ...more,
        command: '/blitz resume',
        resetAt: reset,
      }),
    );
    expect(seen).toHaveLength(7);
    for (const s of seen) expect(s.text, s.path).toContain('2026-12-01 15:00 UTC');
    expect(JSON.parse(seen.find((s) => s.path === '/webhook')!.text).resetAt).toBe(reset);
  });
});
