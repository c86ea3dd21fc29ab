// git, run through exec.ts: credentials go in per-command environment (GIT_CONFIG_* entries), so
// they never land in argv, the URL, `.git/config` or a log line.
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
}

/** Environment entries that give git an Authorization header for this command only. */
export const credentialEnv = (c: GitCredentials | undefined): Record<string, string> => {
  if (!c) return {};
  const basic = Buffer.from(`${c.username}:${c.token}`).toString('base64');
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
  };
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

/** Runs `git <args>` in cwd; a non-zero exit throws `git_failed` with the (redacted) stderr. */
export const git = async (args: string[], cwd: string, ctx: GitContext): Promise<string> => {
  const res = await run(['git', ...args], {
    cwd,
    env: gitEnv(ctx),
    timeoutMs: ctx.timeoutMs ?? 120_000,
    signal: ctx.signal,
  });
  if (res.exitCode !== 0) {
    const why = redactText(res.stderr.trim() || res.stdout.trim(), secretsOf(ctx)).slice(-2000);
    throw new AppError('git_failed', `git ${args[0]} failed: ${why}`, {
      args: args.map((a) => redactText(a, secretsOf(ctx))),
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
