// git, run through exec.ts: credentials go in per-command environment (GIT_CONFIG_* entries), so
// they never land in argv, the URL, `.git/config` or a log line. Workers hold none: only the runner's
// own git commands that talk to a remote (clone, fetch, push, ls-remote) get them, never a local read
// or write, and never under a repository config a worker could have turned against them (a rewritten
// URL, a proxy, a credential helper, a hook).
import { AppError } from '../errors.ts';
import { redactText, run } from './exec.ts';

/** Credentials for one repo's remote, from the forge adapter (installation token, Gitea token). */
export interface GitCredentials {
  username: string;
  token: string;
}
export type CredentialsProvider = (repo: {
  owner: string;
  name: string;
}) => Promise<GitCredentials | undefined>;

export interface GitContext {
  /** Base environment for git (PATH, HOME…), injected by the caller: only config/ reads process.env. */
  env: Record<string, string>;
  credentials?: GitCredentials;
  /** The clone URL origin must have, where the caller knows it (a worker could have changed it). */
  originUrl?: string;
  /**
   * Check the repository's config even without credentials: with `runner.user` the runner's git runs
   * as root in repositories a worker owns, where a filter or driver a worker set would run as root.
   */
  guardConfig?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Waits before a fetch is tried again after a ref lock was taken (default a timer; tests inject it). */
  lockWait?: (ms: number) => Promise<void>;
}

/**
 * Command-scope settings on every runner git command (they win over any repository config): no hooks
 * and no fsmonitor, so git never starts a program a worker wrote into its worktree's repository.
 */
const PROTECTIVE_CONFIG: [string, string][] = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
];

const configEnv = (entries: [string, string][]): Record<string, string> => {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
};

/** Environment entries that give git an Authorization header for this command only. */
export const credentialEnv = (c: GitCredentials | undefined): Record<string, string> => {
  if (!c) return configEnv(PROTECTIVE_CONFIG);
  const basic = Buffer.from(`${c.username}:${c.token}`).toString('base64');
  return configEnv([...PROTECTIVE_CONFIG, ['http.extraHeader', `Authorization: Basic ${basic}`]]);
};

export const gitEnv = (ctx: GitContext): Record<string, string> => ({
  ...ctx.env,
  GIT_TERMINAL_PROMPT: '0',
  LC_ALL: 'C',
  ...credentialEnv(ctx.credentials),
});

/**
 * Repository settings that would send the runner's credentials elsewhere or run a program under them:
 * URL rewrites, http settings (proxies, headers), credential helpers, includes, ssh commands, filters,
 * drivers. A worker can write its repository's config; the runner then uses no credential there.
 */
const HAZARDOUS_KEY =
  /^(?:url\..*|http\..*|credential(?:\..*)?|include\..*|includeif\..*|core\.(?:hookspath|fsmonitor|sshcommand|askpass|gitproxy)|remote\..*\.(?:pushurl|proxy|uploadpack|receivepack|vcs)|protocol\..*|filter\..*|diff\..*\.(?:textconv|command)|merge\..*\.driver|uploadpack\..*)$/i;

/** The first repository (local or worktree) setting under which the runner will not use credentials. */
export const repoConfigHazard = async (cwd: string, ctx: GitContext): Promise<string | undefined> => {
  const res = await run(['git', 'config', '--list', '--show-scope', '-z'], {
    cwd,
    env: gitEnv({ env: ctx.env }),
    timeoutMs: 30_000,
    signal: ctx.signal,
  });
  if (res.exitCode !== 0) return undefined;
  // -z: `scope NUL key LF value NUL`, so no value can pass for another setting.
  const parts = res.stdout.split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const scope = parts[i];
    if (scope !== 'local' && scope !== 'worktree') continue;
    const entry = parts[i + 1]!;
    const cut = entry.indexOf('\n');
    const key = cut < 0 ? entry : entry.slice(0, cut);
    const value = cut < 0 ? '' : entry.slice(cut + 1);
    if (HAZARDOUS_KEY.test(key)) return key;
    if (/^remote\.[^.]+\.url$/i.test(key) && ctx.originUrl !== undefined && value !== ctx.originUrl)
      return key;
  }
  return undefined;
};

const secretsOf = (ctx: GitContext): string[] =>
  ctx.credentials
    ? [
        ctx.credentials.token,
        Buffer.from(`${ctx.credentials.username}:${ctx.credentials.token}`).toString('base64'),
      ]
    : [];

/** The git commands that talk to a remote: the only ones given the credentials of a context. */
const REMOTE_COMMANDS: ReadonlySet<string> = new Set(['clone', 'fetch', 'push', 'ls-remote']);

/** The subcommand of git's argv, past command-scope `-c key=value` settings. */
const subcommandOf = (args: readonly string[]): string | undefined => {
  let i = 0;
  while (args[i] === '-c') i += 2;
  return args[i];
};

/** What git says when another git process holds a ref's (or packed-refs') lock, or moved it meanwhile. */
const REF_LOCK_TAKEN = /cannot lock ref|Unable to create '[^']*\.lock': File exists/;
const FETCH_LOCK_WAITS = [50, 150, 400, 1000];
const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `git <args>` in cwd; a non-zero exit throws `git_failed` with the (redacted) stderr. The
 * context's credentials go only to a command that talks to a remote: a local read or write (status,
 * rev-parse, log, show-ref, update-ref, worktree…) runs with none in its environment.
 */
export const git = async (args: string[], cwd: string, given: GitContext): Promise<string> => {
  const { credentials, ...local } = given;
  const ctx: GitContext = credentials && REMOTE_COMMANDS.has(subcommandOf(args) ?? '') ? given : local;
  if ((ctx.credentials || ctx.guardConfig) && args[0] !== 'clone') {
    const hazard = await repoConfigHazard(cwd, ctx);
    if (hazard) {
      throw new AppError(
        'forbidden',
        `The repository's git config sets ${hazard}; the runner will not use its credentials there.`,
        { args: args.slice(0, 1), key: hazard },
      );
    }
  }
  const once = () =>
    run(['git', ...args], { cwd, env: gitEnv(ctx), timeoutMs: ctx.timeoutMs ?? 120_000, signal: ctx.signal });
  let res = await once();
  // Two fetches into one clone at once (jobs of one repository starting together, a cleanup after a
  // merge) race for its remote-tracking refs, and the loser fails ("cannot lock ref"). A fetch is
  // idempotent: it is tried again after a short wait, a few times.
  if (subcommandOf(args) === 'fetch')
    for (const ms of FETCH_LOCK_WAITS) {
      if (res.exitCode === 0 || res.timedOut || !REF_LOCK_TAKEN.test(res.stderr)) break;
      await (ctx.lockWait ?? sleepMs)(ms);
      res = await once();
    }
  if (res.exitCode !== 0) {
    const why = redactText(res.stderr.trim() || res.stdout.trim(), secretsOf(given)).slice(-2000);
    throw new AppError('git_failed', `git ${args[0]} failed: ${why}`, {
      args: args.map((a) => redactText(a, secretsOf(given))),
      exitCode: res.exitCode,
      timedOut: res.timedOut,
    });
  }
  return res.stdout;
};

/** Like git(), but a non-zero exit is returned instead of thrown. */
export const gitTry = async (args: string[], cwd: string, ctx: GitContext): Promise<string | undefined> => {
  try {
    return await git(args, cwd, ctx);
  } catch (err) {
    if (err instanceof AppError && err.code === 'git_failed') return undefined;
    throw err;
  }
};

/** The sha of a branch on the remote, or null when the remote has no such branch. */
export const remoteBranchSha = async (
  cwd: string,
  branch: string,
  ctx: GitContext,
  remote = 'origin',
): Promise<string | null> => {
  const out = await git(['ls-remote', '--heads', remote, `refs/heads/${branch}`], cwd, ctx);
  const line = out.split('\n').find((l) => l.endsWith(`\trefs/heads/${branch}`));
  return line ? line.split('\t')[0]! : null;
};
