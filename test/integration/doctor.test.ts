// `blitz-bot doctor` against the fake GitHub (App JWT → GET /app, GET /app/installations) and the
// fake Gitea (token → GET /user, collaborator permission), a real SQLite store, real notify
// endpoints on loopback, and CLIs on a PATH of their own that answer `--version` as the real ones do.
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctorCli } from '../../src/doctor/doctor.ts';
import { testedVersions } from '../../src/runner/tools/tested-versions.ts';
import { type FakeGitea, startFakeGitea } from '../support/fake-gitea/server.ts';
import { type FakeGithub, startFakeGithub } from '../support/fake-github/server.ts';
import { tempDir } from '../support/git.ts';
import { World } from '../support/world.ts';

const key = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
});
const HA_TOKEN = 'ha-long-lived-token-for-doctor';

let github: FakeGithub | undefined;
let gitea: FakeGitea | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await github?.close();
  github?.assertNoViolations();
  await gitea?.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  github = undefined;
  gitea = undefined;
});

/** A loopback server; every request is recorded, and Home Assistant's /api/ wants the token. */
const notifyServer = async (seen: string[]): Promise<string> => {
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url === '/api/') {
      const good = req.headers.authorization === `Bearer ${HA_TOKEN}`;
      res.writeHead(good ? 200 : 401, { 'content-type': 'application/json' });
      res.end(good ? '{"message":"API running."}' : '{"message":"unauthorized"}');
      return;
    }
    res.writeHead(405).end();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const fakeCli = (dir: string, name: string, versionLine: string): void => {
  const path = join(dir, name);
  writeFileSync(path, `#!/usr/bin/env node\nconsole.log(${JSON.stringify(versionLine)});\n`);
  chmodSync(path, 0o755);
};

const setup = async (opts: {
  codexVersion: string;
  haToken: string;
  giteaToken?: string;
  env?: Record<string, string>;
  /** `user:password` put into GITEA_URL, as an operator might. */
  giteaUserinfo?: string;
}) => {
  const world = new World('blitz-bot');
  world.addRepo('acme/app');
  github = await startFakeGithub(world, { app: { appId: 42, publicKey: key.publicKey, installationId: 7 } });
  gitea = await startFakeGitea(world);
  const seen: string[] = [];
  const notify = await notifyServer(seen);
  const root = tempDir('blitz-doctor-');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  fakeCli(bin, 'claude', `${testedVersions.claude.version} (Claude Code)`);
  fakeCli(bin, 'codex', `codex-cli ${opts.codexVersion}`);
  const config = join(root, 'blitz.config.yml');
  writeFileSync(
    config,
    [
      'runner:',
      `  workspace: ${join(root, 'workspace')}`,
      'roster:',
      '  - { name: sonnet, tool: claude, model: sonnet, roles: [blitz], tiers: [execution] }',
      '  - { name: gpt, tool: codex, model: gpt-5, roles: [blitz], tiers: [execution] }',
      'notify:',
      `  - { type: webhook, url: "${notify}/hook", events: [shipped] }`,
      `  - { type: homeAssistant, url: "${notify}", tokenEnv: HA_TOKEN, service: notify.phone, events: [shipped] }`,
      '',
    ].join('\n'),
  );
  const env: Record<string, string> = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: root,
    DATABASE_URL: `sqlite:${join(root, 'blitz.db')}`,
    APP_ID: '42',
    PRIVATE_KEY: key.privateKey,
    WEBHOOK_SECRET: 'github-webhook-secret-of-doctor',
    GHE_HOST: new URL(github.url).host,
    GHE_PROTOCOL: 'http',
    GITEA_URL: opts.giteaUserinfo ? gitea.url.replace('://', `://${opts.giteaUserinfo}@`) : gitea.url,
    GITEA_TOKEN: opts.giteaToken ?? gitea.token,
    GITEA_WEBHOOK_SECRET: 'gitea-webhook-secret-of-doctor',
    HA_TOKEN: opts.haToken,
    ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key',
    OPENAI_API_KEY: 'sk-doctor-test-key',
    ...opts.env,
  };
  const out: string[] = [];
  const run = (...args: string[]) =>
    runDoctorCli(['--config', config, '--repo', 'acme/app', ...args], {
      out: (t) => out.push(t),
      err: (t) => out.push(t),
      env,
    });
  return { run, out, seen };
};

const checksOf = (text: string) =>
  JSON.parse(text) as { ok: boolean; checks: { subject: string; status: string; detail: string }[] };

describe('blitz-bot doctor', () => {
  it('passes a sound setup: tested CLIs, App credentials, Gitea write access, store and notify targets', async () => {
    const { run, out, seen } = await setup({ codexVersion: '0.171.0', haToken: HA_TOKEN });
    expect(await run('--json')).toBe(0);
    const report = checksOf(out.join('\n'));
    expect(report.ok).toBe(true);
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    const detail = (subject: string) =>
      report.checks.filter((c) => c.subject === subject).map((c) => c.detail);
    expect(detail('roster sonnet (claude)')).toContain(
      `claude ${testedVersions.claude.version}, the tested release`,
    );
    expect(detail('roster gpt (codex)').join('\n')).toContain(
      'codex exec --json --sandbox danger-full-access',
    );
    expect(detail('github')).toEqual(['App blitz-bot, installed on installation 7']);
    expect(detail('gitea acme/app')).toEqual(['blitz-bot has write permission']);
    expect(detail('store')[0]).toMatch(/does not exist yet; serve creates it/);
    expect(detail('roster sonnet (claude)')).toContain('credentials: ANTHROPIC_API_KEY set for the worker');
    // Reached, and nothing was sent: a HEAD to the webhook, a GET to Home Assistant's /api/.
    expect(seen.sort()).toEqual(['GET /api/', 'HEAD /hook']);
    expect(github!.requests.map((r) => r.operationId)).toEqual(
      expect.arrayContaining(['apps/get-authenticated', 'apps/list-installations']),
    );
  });

  it('names each problem in plain words and exits non-zero', async () => {
    const { run, out } = await setup({
      codexVersion: '0.100.0',
      haToken: 'wrong-token',
      giteaToken: 'not-a-token',
    });
    expect(await run()).toBe(1);
    const text = out.join('\n');
    expect(text).toContain(
      'PROBLEM  roster gpt (codex): codex 0.100.0 is older than the tested 0.171.0: install @openai/codex@0.171.0',
    );
    expect(text).toMatch(/PROBLEM {2}gitea: .*rejected the bot's token .*check GITEA_TOKEN/);
    expect(text).toMatch(/PROBLEM {2}notify home assistant: .* answered HTTP 401 \(check HA_TOKEN\)/);
    expect(text).toMatch(/^ok {7}github: App blitz-bot/m);
    expect(text).toMatch(/\d+ problem\(s\)/);
    expect(text).not.toContain(key.privateKey.split('\n')[1]!);
  });

  it('prints no password, token or key in any URL it shows', async () => {
    const { run, out } = await setup({
      codexVersion: '0.171.0',
      haToken: HA_TOKEN,
      giteaUserinfo: 'bot:Gitea-Pa55word-Of-Doctor',
      env: {
        // A PostgreSQL nobody listens on: the store line shows the URL and the driver's error.
        DATABASE_URL: 'postgres://blitz:Db-Pa55word-Of-Doctor@127.0.0.1:1/blitz?schema=blitz',
      },
    });
    expect(await run('--json')).toBe(1);
    const text = out.join('\n');
    expect(text).toContain('store');
    expect(text).toContain('postgres://');
    expect(text).not.toContain('Db-Pa55word-Of-Doctor');
    expect(text).not.toContain('Gitea-Pa55word-Of-Doctor');
  });
});

/** Every path under a folder, with its size: what doctor must leave as it found it. */
const listing = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((d) => join(d.parentPath, d.name))
    .sort();

describe('blitz-bot doctor on a fresh folder', () => {
  const fresh = (config: string[]) => {
    const root = tempDir('blitz-doctor-fresh-');
    const bin = join(root, 'bin');
    mkdirSync(bin);
    fakeCli(bin, 'claude', `${testedVersions.claude.version} (Claude Code)`);
    fakeCli(bin, 'codex', `codex-cli ${testedVersions.codex.version}`);
    const path = join(root, 'blitz.config.yml');
    writeFileSync(
      path,
      [`runner:`, `  workspace: ${join(root, 'data', 'workspace')}`, ...config, ''].join('\n'),
    );
    const home = join(root, 'home');
    mkdirSync(home);
    const env: Record<string, string> = {
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: home,
      DATABASE_URL: `sqlite:${join(root, 'data', 'blitz.db')}`,
    };
    const out: string[] = [];
    const run = (extra: Record<string, string> = {}) =>
      runDoctorCli(['--config', path, '--json'], {
        out: (t) => out.push(t),
        err: (t) => out.push(t),
        env: { ...env, ...extra },
      });
    return { root, run, out, home };
  };

  it('creates nothing, names the missing API key, and checks the built-in roster serve would use', async () => {
    const { root, run, out } = fresh([]);
    const before = listing(root);
    expect(await run()).toBe(1);
    expect(listing(root)).toEqual(before);
    const { checks } = checksOf(out.join('\n'));
    const lines = checks.map((c) => `${c.status} ${c.subject}: ${c.detail}`);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ok roster: none configured: serve uses the built-in roster: default-sonnet \(claude --model sonnet\) for blitz execution, .*default-review-codex \(codex\) for reviews of claude work/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^fail roster default-sonnet \(claude\): no credentials found: set ANTHROPIC_API_KEY or/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^fail roster default-review-codex \(codex\): no credentials found: set OPENAI_API_KEY or/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ok workspace: .* does not exist yet; serve makes it/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^ok store: .* does not exist yet; serve creates it/));
  });

  it('with the keys set has no credential problem; a roster with no reviewer says what reviews use', async () => {
    const { run, out } = fresh([
      'roster:',
      '  - { name: sonnet, tool: claude, model: sonnet, roles: [blitz, fleet, plan], tiers: [execution, design, subtle] }',
    ]);
    await run({ ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key', OPENAI_API_KEY: 'sk-doctor-test-key' });
    const { checks } = checksOf(out.join('\n'));
    expect(checks.filter((c) => /credentials/.test(c.detail) && c.status === 'fail')).toEqual([]);
    expect(checks).toContainEqual({
      subject: 'roster',
      status: 'warn',
      detail:
        'no entry for reviews of claude work: serve uses the built-in default-review-codex (codex) there',
    });
    expect(checks.some((c) => c.subject === 'roster default-review-codex (codex)')).toBe(true);
  });
});
