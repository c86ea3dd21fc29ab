// git, run through exec.ts: credentials go in per-command environment (GIT_CONFIG_* entries), so
// they never land in argv, the URL, `.git/config` or a log line. Workers hold none: only the runner's
// own git commands that talk to a remote (clone, fetch, push, ls-remote) get them, never a local read
// or write. The runner runs this git only in repositories it alone writes (its clone of each repo, the
// integration worktree's checkout of it); a worker's repository is read by the worker's own git
// (worker-git.ts), so no setting a worker wrote is ever in force here.
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
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Waits before a fetch is tried again after a ref lock was taken (default a timer; tests inject it). */
  lockWait?: (ms: number) => Promise<void>;
  /**
   * Clones (dir → clone URL) whose origin the runner has checked or made (workspace.ts ensureClone):
   * the runner's contexts carry its map, so the bot's integration reads and merged-branch deletes in
   * the same clones do not ask `remote get-url` again either.
   */
  knownOrigins?: Map<string, string>;
}

/**
 * Command-scope settings on every runner git command (they win over any repository config). A second
 * line: the runner's repositories hold no config but its own. No hooks, no fsmonitor, no signature
 * checks, no tag ever pushed along, no submodule followed, and no `ext::` transport.
 */
const PROTECTIVE_CONFIG: [string, string][] = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['log.showSignature', 'false'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['push.followTags', 'false'],
  ['push.gpgSign', 'false'],
  ['push.recurseSubmodules', 'no'],
  ['fetch.recurseSubmodules', 'false'],
  ['protocol.ext.allow', 'never'],
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
export const git = async (
  args: string[],
  cwd: string,
  given: GitContext,
  opts: { input?: string } = {},
): Promise<string> => {
  const { credentials, ...local } = given;
  const ctx: GitContext = credentials && REMOTE_COMMANDS.has(subcommandOf(args) ?? '') ? given : local;
  const once = () =>
    run(['git', ...args], {
      cwd,
      env: gitEnv(ctx),
      timeoutMs: ctx.timeoutMs ?? 120_000,
      signal: ctx.signal,
      ...(opts.input !== undefined ? { input: opts.input } : {}),
    });
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
