// `blitz-bot notify test` against real HTTP receivers on 127.0.0.1: a generic webhook receiver that
// verifies X-Blitz-Signature-256 as a receiver would (its own HMAC over the raw bytes, compared in
// constant time), a Slack receiver checking Block Kit, and one that answers 404. Any request a
// receiver was not told to expect fails the test.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { run } from '../../src/runner/exec.ts';
import { runNotifyCli } from '../../src/ship/notify-test-command.ts';
import { blitzBotArgv } from '../support/cli.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { slackMessage } from '../support/notify-shapes.ts';

const signingSecret = 'whsec-7f3a9c2e1b';
const webhookBodyShape = z.strictObject({
  event: z.literal('test'),
  repo: z.string(),
  run: z.strictObject({ id: z.string(), kind: z.literal('blitz'), title: z.string() }),
  milestone: z.string(),
  issue: z.null(),
  sentence: z.string().includes('notify test'),
  message: z.string(),
  url: z.literal('https://blitz.example.com'),
  issuesShipped: z.literal(0),
  path: z.null(),
  command: z.null(),
  resetAt: z.null(),
});

/** What a receiver of the generic webhook does: recompute the HMAC of the raw body and compare. */
const signatureValid = (header: string | undefined, raw: Buffer, secret: string): boolean => {
  if (!header?.startsWith('sha256=')) return false;
  const want = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
  const got = Buffer.from(header);
  return got.length === want.length && timingSafeEqual(got, want);
};

let server: Server;
let base: string;
let problems: string[];
let received: string[];
const dirs: string[] = [];

beforeEach(async () => {
  problems = [];
  received = [];
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    received.push(req.url ?? '');
    if (req.method !== 'POST') problems.push(`method ${req.method}`);
    if (req.headers['content-type'] !== 'application/json') problems.push(`content-type on ${req.url}`);
    const body: unknown = JSON.parse(raw.toString('utf8'));
    if (req.url === '/hook' || req.url === '/hook-other-key') {
      const header = req.headers['x-blitz-signature-256'];
      if (!signatureValid(typeof header === 'string' ? header : undefined, raw, signingSecret)) {
        res.writeHead(401).end();
        return;
      }
      const shape = webhookBodyShape.safeParse(body);
      if (!shape.success) problems.push(`webhook body: ${shape.error.message}`);
      res.writeHead(204).end();
      return;
    }
    if (req.url === '/slack') {
      const shape = slackMessage.safeParse(body);
      if (!shape.success) problems.push(`slack body: ${shape.error.message}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (req.url === '/gone') {
      res.writeHead(404).end();
      return;
    }
    problems.push(`unexpected ${req.method} ${req.url}`);
    res.writeHead(418).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  for (const d of dirs.splice(0)) removeDir(d);
  expect(problems).toEqual([]);
});

const configFile = (yaml: string): string => {
  const dir = tempDir('blitz-notify-test-');
  dirs.push(dir);
  const path = join(dir, 'blitz.config.yml');
  writeFileSync(path, yaml);
  return path;
};

const cli = async (args: string[], env: Record<string, string>) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runNotifyCli(args, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

const targets = () => `publicUrl: https://blitz.example.com
notify:
  - {type: webhook, name: signed, urlEnv: HOOK_URL, secretEnv: HOOK_SECRET, events: [shipped]}
  - {type: slack, urlEnv: SLACK_URL}
  - {type: discord, name: gone, url: ${base}/gone}
`;

describe('blitz-bot notify test', () => {
  it('sends one test message to each target, whatever events it chose, and says which accepted it', async () => {
    const path = configFile(targets());
    const res = await cli(['test', '--config', path], {
      HOOK_URL: `${base}/hook`,
      HOOK_SECRET: signingSecret,
      SLACK_URL: `${base}/slack`,
    });
    expect(res.code).toBe(1);
    expect(res.out.split('\n')).toEqual([
      '✓ signed (webhook): accepted',
      '✓ slack (slack): accepted',
      `✗ gone (discord): ${base} answered HTTP 404`,
    ]);
    expect(received.sort()).toEqual(['/gone', '/hook', '/slack']);
  });

  it('tests only the named target and exits 0 when it accepted', async () => {
    const path = configFile(targets());
    const res = await cli(['test', 'signed', '--config', path, '--json'], {
      HOOK_URL: `${base}/hook`,
      HOOK_SECRET: signingSecret,
      SLACK_URL: `${base}/slack`,
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.out)).toEqual({
      ok: true,
      targets: [{ target: 'signed', type: 'webhook', accepted: true }],
    });
    expect(received).toEqual(['/hook']);
  });

  it('a body signed with another secret is refused by the receiver, and the secret is not printed', async () => {
    const path = configFile(targets());
    const res = await cli(['test', 'signed', '--config', path], {
      HOOK_URL: `${base}/hook`,
      HOOK_SECRET: 'not-the-receivers-secret',
    });
    expect(res.code).toBe(1);
    expect(res.out).toBe(`✗ signed (webhook): ${base} answered HTTP 401`);
    expect(res.out).not.toContain('not-the-receivers-secret');
  });

  it('a target whose secret variable is unset is reported and nothing is sent unsigned', async () => {
    const path = configFile(targets());
    const res = await cli(['test', 'signed', '--config', path], { HOOK_URL: `${base}/hook` });
    expect(res.code).toBe(1);
    expect(res.out).toContain('its signing secret is empty (set HOOK_SECRET)');
    expect(received).toEqual([]);
  });

  it('an unknown name exits 2 with the nearest configured name, and sends nothing', async () => {
    const path = configFile(targets());
    const res = await cli(['test', 'singed', '--config', path], {});
    expect(res.code).toBe(2);
    expect(res.err).toBe(
      'No notify target is called singed (did you mean `signed`?); configured: signed, slack, gone.',
    );
    expect(received).toEqual([]);
  });

  it('no targets, a bad config file or bad arguments: a clear error and nothing sent', async () => {
    expect((await cli(['test', '--config', configFile('runner: {maxSessions: 1}\n')], {})).err).toContain(
      'No notify targets are configured',
    );
    const bad = await cli(['test', '--config', configFile('notify: [{type: slack}]\n')], {});
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('give exactly one of url and urlEnv');
    expect((await cli(['send'], {})).code).toBe(2);
    expect((await cli(['test', '--bogus'], {})).code).toBe(2);
    expect(received).toEqual([]);
  });

  it('runs as the compiled `blitz-bot notify test`, reading the variables from the environment', async () => {
    const path = configFile(targets());
    const res = await run(blitzBotArgv('notify', 'test', 'signed', '--config', path), {
      env: { PATH: process.env.PATH ?? '', HOOK_URL: `${base}/hook`, HOOK_SECRET: signingSecret },
      cwd: dirs[0]!,
      timeoutMs: 60_000,
    });
    expect(res.exitCode).toBe(0);
    expect(res.stdout.trim()).toBe('✓ signed (webhook): accepted');
  });
});
