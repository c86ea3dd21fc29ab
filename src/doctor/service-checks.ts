// Doctor checks of what the bot talks to: the forge credentials (GitHub App JWT → GET /app and its
// installations; Gitea token → GET /user and the permission on each repository asked about), the
// webhook secrets, the store, and the notify targets. Nothing is written anywhere: no notification
// is sent, no database made or migrated.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Env } from '../config/env.ts';
import type { NotifyTargetValues } from '../config/notify-targets.ts';
import { checkGiteaToken } from '../forges/gitea/token-check.ts';
import { checkGithubApp } from '../forges/github/app-check.ts';
import { githubBaseUrl } from '../forges/github/client.ts';
import type { RepoRef } from '../forges/types.ts';
import { redactText } from '../runner/exec.ts';
import { readMigrations } from '../store/migrate.ts';
import { parseDatabaseUrl } from '../store/open-store.ts';
import { type CheckResult, fail, messageOf, ok, warn } from './checks.ts';
import { nearestExisting, writableDir } from './host-checks.ts';

const REQUEST_TIMEOUT_MS = 10_000;

export const checkGithub = async (env: Env): Promise<CheckResult[]> => {
  if (!env.APP_ID && !env.PRIVATE_KEY && !env.PRIVATE_KEY_PATH && !env.WEBHOOK_SECRET)
    return [ok('github', 'off (APP_ID unset)')];
  if (!env.github) {
    const missing = [
      env.APP_ID ? undefined : 'APP_ID',
      env.PRIVATE_KEY || env.PRIVATE_KEY_PATH ? undefined : 'PRIVATE_KEY or PRIVATE_KEY_PATH',
      env.WEBHOOK_SECRET ? undefined : 'WEBHOOK_SECRET',
    ].filter(Boolean);
    return [fail('github', `half configured: set ${missing.join(', ')}`)];
  }
  try {
    const found = await checkGithubApp({
      baseUrl: githubBaseUrl({ host: env.GHE_HOST, protocol: env.GHE_PROTOCOL }),
      appId: env.github.appId,
      privateKey: env.github.privateKey,
    });
    if (found.installations.length === 0)
      return [warn('github', `App ${found.app} answers, but is installed nowhere yet`)];
    return [ok('github', `App ${found.app}, installed on ${found.installations.join(', ')}`)];
  } catch (err) {
    return [fail('github', `the App's credentials were refused or GitHub did not answer: ${messageOf(err)}`)];
  }
};

const WRITE = new Set(['write', 'admin', 'owner']);

export const checkGitea = async (env: Env, repos: RepoRef[]): Promise<CheckResult[]> => {
  if (!env.GITEA_URL && !env.GITEA_TOKEN && !env.GITEA_WEBHOOK_SECRET)
    return [ok('gitea', 'off (GITEA_URL unset)')];
  if (!env.gitea) {
    const missing = [
      env.GITEA_URL ? undefined : 'GITEA_URL',
      env.GITEA_TOKEN ? undefined : 'GITEA_TOKEN',
      env.GITEA_WEBHOOK_SECRET ? undefined : 'GITEA_WEBHOOK_SECRET',
    ].filter(Boolean);
    return [fail('gitea', `half configured: set ${missing.join(', ')}`)];
  }
  try {
    const found = await checkGiteaToken({ url: env.gitea.url, token: env.gitea.token, repos });
    const results = [
      ok(
        'gitea',
        `token of ${found.login}${repos.length ? '' : '; pass --repo owner/name to check a repository’s permission'}`,
      ),
    ];
    for (const p of found.permissions)
      results.push(
        WRITE.has(p.permission)
          ? ok(`gitea ${p.repo}`, `${found.login} has ${p.permission} permission`)
          : fail(`gitea ${p.repo}`, `${found.login} has ${p.permission} permission; the bot needs write`),
      );
    return results;
  } catch (err) {
    return [fail('gitea', messageOf(err))];
  }
};

/** A secret shorter than this is easy to guess. */
const MIN_SECRET = 16;

export const checkWebhookSecrets = (env: Env): CheckResult[] => {
  const results: CheckResult[] = [];
  const one = (subject: string, on: boolean, secret: string | undefined, name: string) => {
    if (!on) return;
    if (!secret) results.push(fail(subject, `${name} is not set: webhooks cannot be verified`));
    else if (secret.length < MIN_SECRET)
      results.push(warn(subject, `${name} is set but shorter than ${MIN_SECRET} characters`));
    else results.push(ok(subject, `${name} is set`));
  };
  one('github webhook', Boolean(env.APP_ID), env.WEBHOOK_SECRET, 'WEBHOOK_SECRET');
  one('gitea webhook', Boolean(env.GITEA_URL), env.GITEA_WEBHOOK_SECRET, 'GITEA_WEBHOOK_SECRET');
  return results;
};

/** The migration versions a SQLite file has applied, read without writing (none: a new database). */
const sqliteApplied = (path: string): number[] => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
    );
    if (table.get() === undefined) return [];
    return db
      .prepare('SELECT version FROM schema_migrations')
      .pluck()
      .all()
      .map((v) => Number(v));
  } finally {
    db.close();
  }
};

/** The same of a PostgreSQL database (in its `?schema=`), over one connection that only reads. */
const postgresApplied = async (url: string, schema: string | undefined): Promise<number[]> => {
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: REQUEST_TIMEOUT_MS,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const t = await client.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
    if (!t.rows[0]?.t) return [];
    const rows = await client.query<{ version: string | number }>('SELECT version FROM schema_migrations');
    return rows.rows.map((r) => Number(r.version));
  } finally {
    await client.end().catch(() => {});
  }
};

/**
 * Whether the store opens, and what serve would still apply to it. Read only: a SQLite file that is
 * not there is not made (its folder is checked instead), and no migration runs.
 */
export const checkStore = async (databaseUrl: string): Promise<CheckResult> => {
  const shown = redactText(databaseUrl);
  try {
    const location = parseDatabaseUrl(databaseUrl);
    let applied: number[];
    if (location.engine === 'sqlite') {
      if (location.path === ':memory:') return ok('store', `${shown}: in memory, nothing is kept`);
      const path = resolve(location.path);
      if (!existsSync(path)) {
        const at = nearestExisting(path);
        return writableDir(at)
          ? ok('store', `${shown} does not exist yet; serve creates it (${at} is writable)`)
          : fail('store', `${shown} does not exist, and ${at} is not writable: serve cannot create it`);
      }
      applied = sqliteApplied(path);
    } else applied = await postgresApplied(location.url, location.schema);
    const expected = readMigrations().map((m) => m.version);
    const pending = expected.filter((v) => !applied.includes(v)).length;
    if (applied.some((v) => !expected.includes(v)))
      return warn('store', `${shown} opens, but a newer blitz-bot has migrated it`);
    if (pending === 0) return ok('store', `${shown} opens and is migrated`);
    return ok('store', `${shown} opens; serve applies ${pending} migration(s) at start`);
  } catch (err) {
    return fail('store', `${shown} cannot be opened: ${redactText(messageOf(err))}`);
  }
};

const reach = async (url: string, init: RequestInit): Promise<Response> =>
  fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });

/** Where a target is, for a line of output: the origin only (a webhook URL is itself a secret). */
const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
};

const checkReach = async (
  subject: string,
  url: string,
  init: RequestInit,
  hint?: string,
): Promise<CheckResult> => {
  try {
    const res = await reach(url, init);
    if (init.headers && (res.status === 401 || res.status === 403))
      return fail(subject, `${originOf(url)} answered HTTP ${res.status}${hint ? ` (check ${hint})` : ''}`);
    return ok(subject, `${originOf(url)} answers (HTTP ${res.status})`);
  } catch (err) {
    return fail(subject, `${originOf(url)} is not reachable: ${redactText(messageOf(err))}`);
  }
};

/** Each notify target reached without sending anything: a HEAD, or an authenticated GET that reads. */
export const checkNotifyTargets = async (targets: NotifyTargetValues): Promise<CheckResult[]> => {
  const list = targets.targets ?? [];
  if (list.length === 0) return [ok('notify', 'no targets configured')];
  const results: CheckResult[] = [];
  for (const t of list) {
    const subject = t.type === 'homeAssistant' ? 'notify home assistant' : `notify ${t.name}`;
    if (t.type === 'homeAssistant' || t.type === 'matrix') {
      if (!t.token) {
        results.push(fail(subject, `${t.tokenEnv} is not set`));
        continue;
      }
      // Home Assistant's GET /api/ and Matrix's whoami answer for a valid token; neither sends anything.
      const url =
        t.type === 'homeAssistant'
          ? `${t.url.replace(/\/+$/, '')}/api/`
          : `${t.homeserver.replace(/\/+$/, '')}/_matrix/client/v3/account/whoami`;
      const check = await checkReach(
        subject,
        url,
        { headers: { authorization: `Bearer ${t.token}` } },
        t.tokenEnv,
      );
      results.push(
        check.status === 'ok' && t.type === 'homeAssistant'
          ? ok(subject, `${originOf(t.url)} answers and takes the token`)
          : check,
      );
      continue;
    }
    if (!t.url) {
      results.push(fail(subject, `its URL is empty${t.urlEnv ? ` (set ${t.urlEnv})` : ''}`));
      continue;
    }
    // Any HTTP answer proves the target is there; a POST would be a notification.
    results.push(await checkReach(subject, t.url, { method: 'HEAD' }));
  }
  return results;
};
