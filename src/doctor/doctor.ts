// `blitz-bot doctor [--json] [--repo owner/name]… [--config FILE]`: checks that this host can run
// the bot and its workers before a run finds out: the roster serve would use (built-in defaults
// included) with each CLI and its credentials, git, the workspace, the forge credentials, the webhook
// secrets, the store and the notify targets. It changes nothing: no directory or database is made,
// no migration applied, nothing sent. Exit 0 when nothing is wrong, 1 on a problem, 2 on bad arguments.
import { parseArgs } from 'node:util';
import { configuredSecrets } from '../compose/secrets.ts';
import { loadBlitzConfig, runnerBaseEnv } from '../config/blitz-config.ts';
import { loadEnv } from '../config/env.ts';
import { notifyTargetsFrom } from '../config/notify-targets.ts';
import { resolveEntryEnv } from '../config/worker-env.ts';
import type { RepoRef } from '../forges/types.ts';
import { redactText } from '../runner/exec.ts';
import { passwdHome, resolveWorkerUser, type WorkerUser } from '../runner/worker-user.ts';
import { type CheckResult, exitCodeOf, fail, formatChecks, messageOf } from './checks.ts';
import { checkCredentials } from './credential-checks.ts';
import { effectiveRoster } from './effective-roster.ts';
import { checkGit, checkSandbox, checkWorkspace } from './host-checks.ts';
import { checkRosterEntry, probeVersion, type VersionProbe } from './roster-checks.ts';
import {
  checkGitea,
  checkGithub,
  checkNotifyTargets,
  checkStore,
  checkWebhookSecrets,
} from './service-checks.ts';

export const doctorUsage = 'usage: blitz-bot doctor [--json] [--repo OWNER/NAME]… [--config FILE]';

export interface DoctorIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** The environment to read; process.env by default (through config/). */
  env?: Record<string, string | undefined>;
  probe?: VersionProbe;
}

const defaultIo: DoctorIo = { out: (t) => console.log(t), err: (t) => console.error(t) };

/** The HOME a worker gets: `runner.user`'s home, else the runner's own (supervisor.ts `workerHome`). */
const workerHomeOf = (user: string | undefined, baseEnv: Record<string, string>): string =>
  (user === undefined ? undefined : passwdHome(user)) ?? baseEnv.HOME ?? '/';

const repoRef = (text: string): RepoRef | undefined => {
  const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(text);
  return m ? { owner: m[1]!, name: m[2]! } : undefined;
};

export const runDoctorCli = async (args: string[], io: DoctorIo = defaultIo): Promise<number> => {
  let values: { json?: boolean; repo?: string[]; config?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        json: { type: 'boolean' },
        repo: { type: 'string', multiple: true },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    io.err(`${messageOf(err)}\n${doctorUsage}`);
    return 2;
  }
  if (values.help) {
    io.out(doctorUsage);
    return 0;
  }
  const repos: RepoRef[] = [];
  for (const r of values.repo ?? []) {
    const ref = repoRef(r);
    if (!ref) {
      io.err(`--repo ${r}: expected OWNER/NAME\n${doctorUsage}`);
      return 2;
    }
    repos.push(ref);
  }
  const results = await runDoctor({ configPath: values.config, repos, io });
  io.out(
    values.json
      ? JSON.stringify({ ok: exitCodeOf(results) === 0, checks: results }, null, 2)
      : formatChecks(results),
  );
  return exitCodeOf(results);
};

/** The worker user the runner would switch to, when doctor can tell (else the sandbox is tried as itself). */
const doctorWorkerUser = (runner: { user?: string; group?: string }): WorkerUser | undefined => {
  try {
    return resolveWorkerUser(runner, { botUid: process.getuid?.() ?? -1 });
  } catch {
    return undefined;
  }
};

/** Every check, in the order a person fixes things: config, host, roster, forges, store, notify. */
export const runDoctor = async (opts: {
  configPath?: string;
  repos: RepoRef[];
  io: DoctorIo;
}): Promise<CheckResult[]> => {
  // Undefined: config/ reads process.env itself (the only module that does).
  const source = opts.io.env;
  let env: ReturnType<typeof loadEnv>;
  let config: ReturnType<typeof loadBlitzConfig>;
  try {
    env = loadEnv(source);
    config = loadBlitzConfig(opts.configPath, source);
  } catch (err) {
    return [fail('config', redactText(messageOf(err)))];
  }
  const baseEnv = runnerBaseEnv(config.runner.passEnv, source);
  const results: CheckResult[] = [];
  results.push(await checkGit(baseEnv));
  results.push(checkWorkspace(config.runner.workspace));
  const sandbox = checkSandbox(config.runner, baseEnv.PATH, doctorWorkerUser(config.runner));
  results.push(sandbox);
  const roster = effectiveRoster(config.roster);
  results.push(...roster.notes);
  // Sandboxed, each worker gets a fresh HOME of its own: a CLI's login kept in a HOME is never seen.
  const home = sandbox.status === 'ok' ? undefined : workerHomeOf(config.runner.user, baseEnv);
  for (const entry of roster.entries) {
    const own = resolveEntryEnv(entry.env, source);
    for (const name of own.missing)
      results.push(
        fail(
          `roster ${entry.name} (${entry.tool})`,
          `env names ${name} (fromEnv), which is not set for the runner`,
        ),
      );
    const workerEnv = { ...baseEnv, ...own.env };
    results.push(...(await checkRosterEntry(entry, workerEnv, opts.io.probe ?? probeVersion)));
    results.push(checkCredentials(entry, workerEnv, home));
  }
  results.push(...(await checkGithub(env)));
  results.push(...(await checkGitea(env, opts.repos)));
  results.push(...checkWebhookSecrets(env));
  results.push(await checkStore(env.DATABASE_URL));
  const notify = notifyTargetsFrom(config.notify, source);
  results.push(...(await checkNotifyTargets(notify)));
  // One pass over every line printed: a URL a check or an error repeats (DATABASE_URL, GITEA_URL, a
  // driver's message) keeps no userinfo, token query or configured secret.
  const secrets = configuredSecrets(env, notify).filter((s): s is string => Boolean(s));
  return results.map((r) => ({ ...r, detail: redactText(r.detail, secrets) }));
};
