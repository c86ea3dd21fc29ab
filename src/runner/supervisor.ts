// Supervision of detached workers: launch through the exit-recording wrapper, re-attach after a
// restart, and on each tick detect completion (process exited cleanly AND the branch on origin holds
// commits ahead of its base), stalls, endpoint failures the CLI keeps retrying, and timeouts. Every
// terminal state is written to the ledger, emitted as an event and logged.

import {
  copyFileSync,
  existsSync,
  type FSWatcher,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { isAppError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { decideExit, decideStopped } from '../plan/attempt-exit.ts';
import { causeWords } from '../plan/environment-park.ts';
import {
  parsePermissionDenials,
  parseReportedModel,
  parseSessionId,
  parseTokenUsage,
  refusedSummary,
} from './agent-output.ts';
import { hasRoom } from './disk-space.ts';
import { isAlive, killGroup, processStartTime, redactArgv, spawnDetached } from './exec.ts';
import {
  classifyExit,
  type DiskPlace,
  diskFullSummary,
  isDiskFull,
  liveEnvironmentCause,
} from './failure-class.ts';
import { parseFinalReport } from './final-report.ts';
import { type GitContext, gitTry, remoteBranchSha } from './git.ts';
import type { JailPlace, WorkerJail } from './jail.ts';
import { readTreeActivity } from './process-tree.ts';
import { buildNudge, isFeedbackReason, type NudgeSituation } from './prompt.ts';
import { stallCheck } from './stall.ts';
import { commandFor, jobEntry, sessionsOf } from './tools/index.ts';
import { placeholdersOf } from './tools/placeholders.ts';
import type {
  AttemptLedger,
  AttemptOutcome,
  AttemptRecord,
  Clock,
  EventSink,
  FailureCause,
  ResumeReason,
  SurvivedWork,
} from './types.ts';
import { readWorkerFile, workerFileStat } from './worker-files.ts';
import { isSha, readWorkerRefs, type WorkerGit, type WorkerRepo } from './worker-git.ts';
import { chownTree, type WorkerUser } from './worker-user.ts';
import {
  commitsAheadOfBase,
  conflictMarkers,
  importBranch,
  readStartRefs,
  survivedWork,
} from './worktrees.ts';

export const wrapperPath = fileURLToPath(new URL('./worker-wrapper.mjs', import.meta.url));

const exitFileSchema = z.object({
  exitCode: z.number().int(),
  signal: z.string().nullable().optional(),
  error: z.string().optional(),
});

/** The wrapper's exit record; undefined when missing or unreadable (then the worker was interrupted). */
export const readExitFile = (path: string): z.infer<typeof exitFileSchema> | undefined => {
  const text = readWorkerFile(path, 64 * 1024);
  if (!text) return undefined;
  try {
    const parsed = exitFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/** The last `bytes` of a file (a worker log can grow large; its end is what a live check reads). */
export const readTail = (path: string, bytes: number): string => readWorkerFile(path, bytes);

/** An error's words, for matching a full disk in them. */
const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export interface SupervisorDeps {
  ledger: AttemptLedger;
  clock: Clock;
  events: EventSink;
  logger: Logger;
  /**
   * git environment and credentials for a repo (git.ts hands the credentials to remote commands only);
   * `credentials: false` for local reads and writes only, without asking for them.
   */
  gitContext: (
    repo: { owner: string; name: string },
    opts?: { credentials?: boolean },
  ) => Promise<GitContext>;
  /** Environment for a worker process of this attempt. */
  workerEnv: (
    record: AttemptRecord,
    promptFile: string,
  ) => Promise<{ env: Record<string, string>; secrets: string[] }>;
  maxNudges: number;
  attemptTimeoutMs: number;
  /** Called when an attempt ends unsolved, so the runner can retry it with the failure fed back. */
  onUnsolved?: (record: AttemptRecord) => Promise<void>;
  /** `runner.user`: workers start as this user, owning their repository and attempt directory. */
  workerUser?: WorkerUser;
  /** git in a worker's repository, run as the worker (its jail): the only git that reads one. */
  workerGit: WorkerGit;
  /** The environment workers start from (its HOME is theirs when they run as the bot's user). */
  baseEnv: Record<string, string>;
  /** The sandbox a worker runs in, and where (its writable paths, HOME, endpoints); none without. */
  jail?: WorkerJail;
  jailPlace?: (record: AttemptRecord) => JailPlace;
  /**
   * Told when a worker this process started exits (its exit file is written by then), so its owner can
   * collect it at once (collectExits) rather than at the next tick. Not told for re-attached workers.
   */
  onWorkerExit?: (attemptId: string) => void;
  /** This host's name in a full disk's summary (default `os.hostname()`). */
  host?: string;
  /** Free bytes an attempt's filesystem needs before its session is resumed (default 0: no check). */
  minFreeBytes?: number;
}

/**
 * True when the attempt's pid is the worker this runner spawned for it: the same process (the start
 * time recorded at spawn) still running our wrapper for this attempt's exit file. Pids get reused, so
 * a live pid alone proves nothing, and an attempt without an exit path is never anyone's worker.
 */
export const isOurWorker = (r: Pick<AttemptRecord, 'pid' | 'pidStartTime' | 'exitPath'>): boolean => {
  const { pid, exitPath } = r;
  if (pid === undefined || !Number.isInteger(pid) || pid <= 1 || !exitPath.startsWith('/')) return false;
  if (!isAlive(pid)) return false;
  // Attempts launched before start times were recorded are known by their wrapper's argv alone.
  if (r.pidStartTime !== undefined && processStartTime(pid) !== r.pidStartTime) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(exitPath);
  } catch {
    return false;
  }
};

/** The worker's HOME: the worker user's home when there is one, else the attempt dir (else the bot's). */
export const workerHome = (
  user: WorkerUser | undefined,
  attemptDir: string,
  env: Record<string, string>,
): string =>
  user ? (user.home && existsSync(user.home) ? user.home : attemptDir) : (env.HOME ?? attemptDir);

/** HOME, USER and LOGNAME of the worker user. */
const userEnv = (user: WorkerUser, attemptDir: string): Record<string, string> => ({
  HOME: workerHome(user, attemptDir, {}),
  USER: user.name,
  LOGNAME: user.name,
});

/**
 * HEAD and the attempt's branch in the worker's repository (read as the worker), and from the runner's
 * cache: the branch as the runner last took it from the worker (`imported`), origin's base branch and
 * the attempt's branch as the cache last saw it on origin (its tracking ref). Undefined/null: no such ref.
 */
interface Refs {
  head: string | null;
  local?: string;
  imported?: string;
  base?: string;
  tracking?: string;
}

/** This process as an attempt's `setupBy` names it: its pid and start time. */
export const thisProcess = (): NonNullable<AttemptRecord['setupBy']> => {
  const startTime = processStartTime(process.pid);
  return startTime === undefined ? { pid: process.pid } : { pid: process.pid, startTime };
};

/**
 * True when the process that was setting an attempt up is gone: its pid is dead, or now names another
 * process (another start time). Unknown (an attempt recorded before `setupBy`) is not gone.
 */
export const setterGone = (setupBy: AttemptRecord['setupBy']): boolean => {
  if (!setupBy) return false;
  if (!isAlive(setupBy.pid)) return true;
  return setupBy.startTime !== undefined && processStartTime(setupBy.pid) !== setupBy.startTime;
};

/**
 * A live process whose argv names `exitPath` (the worker wrapper's first argument): a worker spawned
 * by a setter that died before it recorded the pid. Read from /proc; none where there is none.
 */
export const unrecordedWorker = (exitPath: string): number | undefined => {
  if (!exitPath.startsWith('/')) return undefined;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').includes(exitPath)) return Number(e);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return undefined;
};

/** What a supervisor remembers of one attempt between ticks (kept only while the attempt is open). */
interface AttemptMemo {
  pid: number | undefined;
  /** Checks of refs so far; every FORCED_READ-th one reads them with git whatever the files say. */
  reads: number;
  refs?: Refs;
  refsStamp?: string;
  logStamp?: string;
  ownRange?: string;
  own?: number;
}

const FORCED_READ = 10;

const statStamp = (path: string): string => {
  try {
    // lstat: a worker's repository is the worker's; the runner follows no link in it.
    const s = lstatSync(path);
    return `${s.ino}:${s.mtimeMs}:${s.size}`;
  } catch {
    return '-';
  }
};

/**
 * A stamp of the files HEAD and the attempt's branch live in, in the worker's repository: HEAD, its
 * reflog (a commit on any branch appends to it), the branch and packed-refs. git replaces a ref file by
 * rename, so any update changes it. Only metadata is read, never a file's content.
 */
const refStamp = (worktree: string, branch: string): string =>
  ['HEAD', 'logs/HEAD', 'packed-refs', `refs/heads/${branch}`]
    .map((f) => statStamp(join(worktree, '.git', f)))
    .join('|');

export class Supervisor {
  /** The pass under way, and the exits-only pass asked for while it runs (collectExits). */
  private current: Promise<void> | undefined;
  private followUp: Promise<void> | undefined;
  private readonly memos = new Map<string, AttemptMemo>();
  /**
   * Attempts being relaunched right now (a resume, or a stop and resume with a message): between the
   * ledger's reopening and the new pid the record names a dead process, which a tick must not read
   * as the worker's exit (it would resume the session a second time).
   */
  private readonly relaunching = new Set<string>();
  /** The exit files watched of workers this process did not start (watchReattached), by attempt id. */
  private readonly watched = new Map<string, FSWatcher>();
  constructor(private readonly d: SupervisorDeps) {}

  /**
   * A worker this process did not start (re-attached after a restart) tells no one when it exits: its
   * exit file (written by a rename) is watched instead, so that exit too is collected at once and not
   * at the next tick. Where a watch cannot be set up, the tick finds the exit as before.
   */
  async watchReattached(): Promise<void> {
    const onExit = this.d.onWorkerExit;
    if (!onExit) return;
    for (const r of await this.d.ledger.listOpen()) {
      if (r.runner !== undefined || this.watched.has(r.id) || !isOurWorker(r)) continue;
      const seen = () => {
        if (!existsSync(r.exitPath)) return;
        this.unwatch(r.id);
        onExit(r.id);
      };
      try {
        const w = watch(dirname(r.exitPath), seen);
        w.on('error', () => this.unwatch(r.id));
        w.unref();
        this.watched.set(r.id, w);
      } catch (err) {
        this.d.logger.debug({ attemptId: r.id, err }, 'exit file not watched; the tick collects the exit');
        continue;
      }
      // It may have exited before the watch began.
      seen();
    }
  }

  /** Stops every watch (the bot stops; its workers run on and are re-attached by the next one). */
  unwatchAll(): void {
    for (const id of [...this.watched.keys()]) this.unwatch(id);
  }

  private unwatch(id: string): void {
    this.watched.get(id)?.close();
    this.watched.delete(id);
  }

  /** Starts the worker for `record` with argv; returns the pid (also written to the ledger). */
  async launch(record: AttemptRecord, argv: string[], stdinFile?: string): Promise<number> {
    const { env, secrets } = await this.d.workerEnv(record, stdinFile ?? record.promptPath);
    rmSync(record.exitPath, { force: true });
    const user = this.d.workerUser;
    let wrapper = wrapperPath;
    if (user) {
      // The worker user may not reach the bot's install folder: it runs a copy in its own attempt dir.
      wrapper = join(dirname(record.exitPath), 'worker-wrapper.mjs');
      copyFileSync(wrapperPath, wrapper);
      // The worker writes its exit file there. Its repository was handed over once, when the runner
      // made it (worktrees.ts); the runner's clone stays the runner's.
      chownTree(dirname(record.exitPath), user);
    }
    // The wrapper stays outside the sandbox (it records the exit); the agent runs inside it.
    const jail = this.d.jail?.kind === 'bubblewrap' ? this.d.jail : undefined;
    const place = jail && this.d.jailPlace?.(record);
    let inner = argv;
    let home: Record<string, string> = {};
    if (jail && place) {
      mkdirSync(place.home, { recursive: true });
      if (user) chownTree(place.home, user);
      await jail.prepare?.(place);
      inner = jail.wrap(argv, place);
      home = { HOME: place.home };
    }
    const onWorkerExit = this.d.onWorkerExit;
    const { pid } = spawnDetached(['node', wrapper, record.exitPath, '--', ...inner], {
      cwd: record.worktree,
      env: { ...(user ? { ...env, ...userEnv(user, dirname(record.exitPath)) } : env), ...home },
      logFile: record.logPath,
      stdinFile,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      ...(onWorkerExit ? { onExit: () => onWorkerExit(record.id) } : {}),
    });
    await this.d.ledger.update(record.id, {
      pid,
      pidStartTime: processStartTime(pid),
      // A new process starts a new stall count.
      stallFingerprint: undefined,
      launchedAt: this.d.clock.now().toISOString(),
      argvRedacted: redactArgv(argv, secrets),
    });
    this.d.logger.info({ attemptId: record.id, pid, argv: redactArgv(argv) }, 'worker started');
    this.d.events({ type: 'attempt.started', attemptId: record.id, pid });
    return pid;
  }

  /**
   * One supervision pass over every open attempt. `stalls: false` only collects exits and timeouts
   * (for callers polling faster than the stall interval).
   */
  tick(opts: { stalls?: boolean } = {}): Promise<void> {
    // A slow pass (many workers, a slow remote) must not overlap the next one.
    if (this.current) return Promise.resolve();
    const pass = this.pass(opts).finally(() => {
      this.current = undefined;
    });
    this.current = pass;
    return pass;
  }

  /**
   * An exits-only pass now (a worker just exited): after the pass under way when there is one, since
   * that pass may have looked at the worker before it ended. Resolves once the exit is collected.
   */
  collectExits(): Promise<void> {
    const current = this.current;
    if (!current) return this.tick({ stalls: false });
    // After the pass under way whatever its outcome (its own caller hears of its failure): a follow-up
    // kept as a rejected promise would hand every later exit that old error and collect nothing.
    this.followUp ??= current
      .catch(() => {})
      .then(() => {
        this.followUp = undefined;
        return this.tick({ stalls: false });
      });
    return this.followUp;
  }

  private async pass(opts: { stalls?: boolean }): Promise<void> {
    const open = await this.d.ledger.listOpen();
    for (const id of this.memos.keys()) if (!open.some((r) => r.id === id)) this.memos.delete(id);
    for (const id of this.watched.keys()) if (!open.some((r) => r.id === id)) this.unwatch(id);
    for (const r of open) {
      if (this.relaunching.has(r.id)) continue;
      try {
        await this.check(r, opts);
      } catch (err) {
        // A worker whose branch came with more than the branch (tags, other refs): the runner takes
        // nothing more from it, and the attempt ends, named.
        if (isAppError(err, 'forbidden')) {
          await this.stop(r);
          await this.finish(r, 'unsolved', err.message);
        } else if (isDiskFull(errorText(err))) {
          // The runner's own git (status, log, push) met a full disk: the host's fault, said once, named.
          await this.stop(r);
          await this.finishDiskFull(r);
        } else this.d.logger.error({ attemptId: r.id, err }, 'supervision check failed');
      }
    }
  }

  async check(r: AttemptRecord, opts: { stalls?: boolean } = {}): Promise<void> {
    // A remote runner's attempt (its token reported it) is that runner's to supervise, never this host's.
    if (r.runner !== undefined) return;
    if (r.pid === undefined) {
      // Still being set up (clone, worktree) by startAttempt. A setup whose process is gone (the bot
      // restarted or was killed meanwhile) never starts its worker: ended now, so the issue goes on.
      if (setterGone(r.setupBy)) {
        // Read again: the setter may have launched the worker just before it died.
        const current = await this.d.ledger.get(r.id);
        if (!current || current.outcome || current.pid !== undefined) return;
        // Spawned just before the setter died, its pid never recorded: stopped, so no worker runs on
        // unsupervised beside the issue's next attempt.
        const stray = unrecordedWorker(r.exitPath);
        if (stray !== undefined) {
          const pidStartTime = processStartTime(stray);
          await this.stop({ ...r, pid: stray, ...(pidStartTime ? { pidStartTime } : {}) });
        }
        const summary = `The worker never started: the runner process setting it up (pid ${r.setupBy!.pid}) is gone.`;
        return this.finish(r, 'environment_failure', summary, { cause: { kind: 'lost_before_start' } });
      }
      // Only a long-dead setup of unknown setter (recorded before setupBy) or a stuck one closes here.
      const age = this.d.clock.now().getTime() - Date.parse(r.startedAt);
      if (age > this.d.attemptTimeoutMs) {
        await this.finish(r, 'environment_failure', 'The worker never started (setup was interrupted).');
      }
      return;
    }
    const exited = existsSync(r.exitPath) || !isOurWorker(r);
    if (exited) {
      // Read again: a message delivery (interruptAndResume) may have relaunched the worker since the
      // pass listed it, and the pid it stopped is not the attempt's exit.
      const current = await this.d.ledger.get(r.id);
      if (!current || current.outcome || current.pid !== r.pid) return;
      return this.onExit(current);
    }
    // A CLI retrying a dead endpoint keeps writing its log (codex forever), so neither the stall
    // check nor the exit would catch it before the timeout: its own retry lines end it here.
    // Its tail is read again only when the log changed since this attempt's last check.
    const memo = this.memo(r);
    const log = workerFileStat(r.logPath);
    const logSize = log?.size ?? 0;
    const logStamp = log ? `${log.size}:${log.mtimeMs}:${log.ino}` : 'none';
    const cause = memo.logStamp === logStamp ? undefined : liveEnvironmentCause(readTail(r.logPath, 16_000));
    memo.logStamp = logStamp;
    if (cause) {
      await this.stop(r);
      return this.finish(r, 'environment_failure', `Environment failure: ${causeWords[cause]}.`, {
        cause: { kind: 'environment', cause },
      });
    }
    // A tick's own git is local (show-ref, rev-list): the credentials (for the bot, a read of the live
    // runs and the forge's token) are asked only when there is a commit to push (pushBranch).
    const ctx = await this.gitContextOf(r, { credentials: false });
    if (this.d.clock.now().getTime() - Date.parse(r.launchedAt) > this.d.attemptTimeoutMs) {
      await this.stop(r);
      return this.finish(r, 'unsolved', 'Timed out and was stopped.');
    }
    if (opts.stalls === false) return;
    // origin's side of the branch is the tracking ref: only the runner pushes an attempt's branch (and
    // moves that ref when it does), and each job start's fetch brings it up to date, so a tick asks
    // origin nothing. The exit asks origin itself (onExit).
    const refs = await this.refsOf(r, ctx);
    const remote = await this.pushBranch(r, ctx, refs, refs.tracking ?? null);
    // A quiet command (a test suite, a build) is work: what the tree did since the last check counts too.
    const activity = readTreeActivity(r.pid);
    const obs = { logSize, head: refs.head, remote, ...activity };
    // The previous observation lives in the ledger, so the first check after a restart already counts.
    const { stalled } = stallCheck({ last: r.stallFingerprint }, obs);
    if (!stalled) await this.d.ledger.update(r.id, { stallFingerprint: obs });
    if (stalled) {
      await this.stop(r);
      await this.nudgeOrGiveUp(r, 'stalled');
    }
  }

  /**
   * HEAD, the attempt's branch, its tracking ref and origin's base in the worktree: one `git show-ref`,
   * and none at all while the files those refs live in are unchanged since the attempt's last read (a
   * quiet worker).
   */
  private async refsOf(r: AttemptRecord, ctx: GitContext): Promise<Refs> {
    const memo = this.memo(r);
    const stamp = refStamp(r.worktree, r.branch);
    if (memo.refs && memo.refsStamp === stamp && memo.reads % FORCED_READ !== 0) {
      memo.reads++;
      return memo.refs;
    }
    const refs = await this.readRefs(r, ctx);
    Object.assign(memo, { refs, refsStamp: stamp, reads: memo.reads + 1 });
    return refs;
  }

  /** HEAD and the branch read as the worker; the rest from the runner's own cache. */
  private async readRefs(r: AttemptRecord, ctx: GitContext): Promise<Refs> {
    const worker = await readWorkerRefs(this.d.workerGit, this.repoOf(r), r.branch);
    const cache = await readStartRefs(r.repoDir, r.branch, r.baseBranch, ctx);
    return {
      head: worker.head,
      ...(worker.local ? { local: worker.local } : {}),
      ...(cache.local ? { imported: cache.local } : {}),
      ...(cache.base ? { base: cache.base } : {}),
      ...(cache.remote ? { tracking: cache.remote } : {}),
    };
  }

  /** The worker's repository of an attempt, as its worker-side processes see it. */
  repoOf(r: AttemptRecord): WorkerRepo {
    return { path: r.worktree, home: workerHome(this.d.workerUser, dirname(r.exitPath), this.d.baseEnv) };
  }

  private memo(r: AttemptRecord): AttemptMemo {
    let m = this.memos.get(r.id);
    if (!m || m.pid !== r.pid) {
      m = { pid: r.pid, reads: 1 };
      this.memos.set(r.id, m);
    }
    return m;
  }

  /**
   * Workers hold no forge credential: the runner takes the attempt's branch from the worker's
   * repository into its own cache (importBranch: as data, exactly that ref) and pushes it from there,
   * that refspec only, with its own config, to the clone URL of the job the runner stored. A push git
   * refuses (a rewritten history) is logged; the branch then has not moved. `ctx` may be a local one
   * (a tick's): the credentials are then asked here, for the push alone.
   */
  private async pushBranch(
    r: AttemptRecord,
    ctx: GitContext,
    refs: Refs,
    remote: string | null,
  ): Promise<string | null> {
    const ref = `refs/heads/${r.branch}`;
    const local = refs.local;
    if (!isSha(local) || remote === local) return remote;
    // A branch with nothing of its own (the base as it was checked out) is not work to deliver.
    if (local === refs.base) return remote;
    if (refs.imported !== local && !(await this.importFrom(r, refs, local, ctx))) return remote;
    const memo = this.memo(r);
    const range = `${refs.base ?? `refs/remotes/origin/${r.baseBranch}`}..${local}`;
    if (memo.ownRange !== range) {
      const own = await gitTry(['rev-list', '--count', range], r.repoDir, ctx);
      Object.assign(memo, { ownRange: range, own: own ? Number(own.trim()) : 0 });
    }
    if (!memo.own) return remote;
    const remoteCtx = ctx.credentials === undefined ? await this.gitContextOf(r) : ctx;
    const pushed = await gitTry(
      ['push', '--quiet', '--no-verify', '--no-follow-tags', '--', r.job.cloneUrl, `${ref}:${ref}`],
      r.repoDir,
      remoteCtx,
    );
    if (pushed === undefined) {
      this.d.logger.warn({ attemptId: r.id, branch: r.branch }, 'the runner could not push the branch');
      return remote;
    }
    // The push went to a URL, not to `origin`: keep the cache's tracking ref in step, as a
    // `push origin` would (survivedWork counts against it; cleanup's `branch -d` checks it).
    await gitTry(['update-ref', `refs/remotes/origin/${r.branch}`, local], r.repoDir, ctx);
    refs.tracking = local;
    return local;
  }

  /** The worker's branch at `tip` into the cache; false (logged) when it could not be read. */
  private async importFrom(r: AttemptRecord, refs: Refs, tip: string, ctx: GitContext): Promise<boolean> {
    const known = [refs.base, refs.tracking, refs.imported].filter((s): s is string => s !== undefined);
    try {
      if (!(await importBranch(this.d.workerGit, this.repoOf(r), r.repoDir, r.branch, tip, known, ctx)))
        return false;
    } catch (err) {
      if (isAppError(err, 'forbidden')) throw err;
      this.d.logger.warn({ attemptId: r.id, err }, "the worker's branch could not be read");
      return false;
    }
    refs.imported = tip;
    return true;
  }

  /** Resumes the same session in its worktree (a nudge, an interrupted worker, or a base merge to finish). */
  async resume(r: AttemptRecord, reason: ResumeReason, situation: NudgeSituation): Promise<SurvivedWork> {
    this.relaunching.add(r.id);
    try {
      return await this.relaunchWithRoom(r, reason, situation);
    } finally {
      this.relaunching.delete(r.id);
    }
  }

  /** Where a full disk of this attempt is: this host, and its worktree (its attempt dir before it has one). */
  private diskPlace(r: AttemptRecord): DiskPlace {
    return { host: this.d.host ?? hostname(), path: r.worktree || dirname(r.logPath) };
  }

  /** The attempt ends as an environment failure naming the host and path: the run parks, nobody is charged. */
  private async finishDiskFull(r: AttemptRecord): Promise<void> {
    const at = this.diskPlace(r);
    this.d.logger.warn({ attemptId: r.id, ...at }, 'disk full');
    await this.finish(r, 'environment_failure', diskFullSummary(at), {
      cause: { kind: 'environment', cause: 'disk_full' },
    });
  }

  /**
   * A relaunch, unless the attempt's filesystem is (still) short of room: then, and when the runner's
   * own git meets a full disk on the way, the attempt ends as a full disk again (the park's probe).
   */
  private async relaunchWithRoom(
    r: AttemptRecord,
    reason: ResumeReason,
    situation: NudgeSituation,
  ): Promise<SurvivedWork> {
    const left = r.survived ?? { unpushedCommits: 0, dirtyFiles: 0 };
    const min = this.d.minFreeBytes ?? 0;
    if (min > 0 && !(await hasRoom(this.diskPlace(r).path, min))) {
      await this.finishDiskFull(r);
      return left;
    }
    try {
      return await this.relaunch(r, reason, situation);
    } catch (err) {
      if (!isDiskFull(errorText(err))) throw err;
      await this.finishDiskFull((await this.d.ledger.get(r.id)) ?? r);
      return left;
    }
  }

  private async relaunch(
    r: AttemptRecord,
    reason: ResumeReason,
    situation: NudgeSituation,
  ): Promise<SurvivedWork> {
    const ctx = await this.gitContextOf(r);
    const survived = await survivedWork(
      this.d.workerGit,
      this.repoOf(r),
      r.repoDir,
      r.branch,
      r.baseBranch,
      ctx,
    );
    const n = r.nudges + (reason === 'nudge' ? 1 : 0);
    const nudgeFile = join(r.promptPath, '..', `nudge-${n}-${Date.now()}.md`);
    const criteria = { branch: r.branch, baseBranch: r.baseBranch, deliverable: r.job.deliverable };
    const nudge = buildNudge(criteria, { ...situation, ...survived });
    const sessionId = this.sessionOf(r);
    // A session tool whose session is unknown (it died before printing one) starts afresh: the
    // nudge then follows the whole task, since no history carries it.
    const afresh = sessionId === undefined && sessionsOf(r.job.entry) !== 'none';
    writeFileSync(nudgeFile, afresh ? `${readFileSync(r.promptPath, 'utf8')}\n\n${nudge}` : nudge);
    const cmd = commandFor(jobEntry(r.job), placeholdersOf(r, nudgeFile), 'resume', sessionId);
    if (!cmd) throw new Error(`Roster entry ${r.rosterEntry} cannot resume a session.`);
    const updated = await this.d.ledger.update(r.id, {
      nudges: n,
      ...(isFeedbackReason(reason) ? { feedbackResumes: (r.feedbackResumes ?? 0) + 1 } : {}),
      survived,
      outcome: undefined,
      endedAt: undefined,
      ...(sessionId ? { sessionId } : {}),
    });
    await this.launch(updated, cmd.argv, cmd.stdinFile);
    if (reason === 'nudge') this.d.events({ type: 'attempt.nudged', attemptId: r.id, nudges: n });
    this.d.events({ type: 'attempt.resumed', attemptId: r.id, reason, survived });
    return survived;
  }

  /**
   * A nudge that carries a message to a running worker: stop it and resume its session with the
   * message. The attempt stays open throughout; the ticks leave it alone meanwhile, so the stop is
   * never read as the worker's own exit.
   */
  async interruptAndResume(r: AttemptRecord, reason: ResumeReason, situation: NudgeSituation) {
    this.relaunching.add(r.id);
    try {
      await this.stop(r);
      this.d.logger.info({ attemptId: r.id, reason }, 'worker interrupted to deliver a message');
      return await this.relaunchWithRoom(r, reason, situation);
    } finally {
      this.relaunching.delete(r.id);
    }
  }

  async cancel(r: AttemptRecord): Promise<void> {
    await this.stop(r);
    await this.finish(r, 'cancelled', 'Cancelled.');
  }

  /** The runner's git context for an attempt's repository (its cache of it: r.repoDir). */
  private gitContextOf(r: AttemptRecord, opts?: { credentials?: boolean }): Promise<GitContext> {
    return this.d.gitContext(r.issue.repo, opts);
  }

  /** The session to resume: the one recorded, else the one the log names (codex, opencode). */
  private sessionOf(r: AttemptRecord): string | undefined {
    return r.sessionId ?? parseSessionId(readWorkerFile(r.logPath));
  }

  private canResume(r: AttemptRecord): boolean {
    return commandFor(r.job.entry, placeholdersOf(r, r.promptPath), 'resume') !== undefined;
  }

  /** The facts every exit decision reads about the attempt itself (src/plan/attempt-exit.ts). */
  private stopFacts(r: AttemptRecord) {
    return {
      canResume: this.canResume(r),
      nudges: r.nudges,
      maxNudges: this.d.maxNudges,
      worktree: r.worktree,
    };
  }

  private nudgeOrGiveUp(r: AttemptRecord, why: 'stalled' | 'stopped_early'): Promise<void> {
    return this.applyStopped(r, decideStopped(this.stopFacts(r)), why);
  }

  private async applyStopped(
    r: AttemptRecord,
    d: ReturnType<typeof decideStopped>,
    why: 'stalled' | 'stopped_early',
  ): Promise<void> {
    if (d.kind === 'nudge') {
      await this.resume(r, 'nudge', { reason: why });
      return;
    }
    await this.finish(r, 'stalled', d.summary);
    this.d.events({ type: 'attempt.needs_person', attemptId: r.id, reason: d.summary });
  }

  /** Gathers what the exit left (exit file, pushed branch, markers) and applies decideExit's answer. */
  private async onExit(r: AttemptRecord): Promise<void> {
    const exit = readExitFile(r.exitPath);
    if (!exit) {
      const d = decideExit({ ...this.stopFacts(r), branchMoved: false, markers: [] });
      if (d.kind === 'resume') return void (await this.resume(r, 'interrupted', { reason: 'interrupted' }));
      if (d.kind === 'finish') return this.finish(r, d.outcome, d.summary);
      throw new Error(`an exit without an exit file cannot be ${d.kind}`);
    }
    const ctx = await this.gitContextOf(r);
    // Read afresh: an exit is seen once, and its push must not miss a commit made just before.
    const remote = await this.pushBranch(
      r,
      ctx,
      await this.readRefs(r, ctx),
      await remoteBranchSha(r.repoDir, r.branch, ctx).catch(() => null),
    );
    // Work is commits ahead of the base on origin. A branch that moved with none (an issue branch
    // pushed new at the base's tip) delivered nothing. One that did not move but holds commits ahead
    // carries an earlier attempt's work (a runner that died after pushing, a lease that moved the job
    // here): a worker that finds it done and exits cleanly delivered it. A bounce deletes the branch,
    // so what is on it is this pass's work.
    const ahead =
      remote === null ? 0 : await commitsAheadOfBase(r.repoDir, r.branch, remote, r.baseBranch, ctx);
    const branchMoved = ahead > 0;
    if (branchMoved && remote === r.originShaAtStart && exit.exitCode === 0) {
      this.d.logger.info(
        { attemptId: r.id, issue: r.issue.number, commits: ahead },
        'the branch already held the work of an earlier attempt',
      );
    }
    const log = readWorkerFile(r.logPath);
    // Markers matter only on a clean exit that pushed work (then `remote` is in the cache: counted above).
    const markers =
      exit.exitCode === 0 && branchMoved && remote ? await conflictMarkers(r.repoDir, remote, ctx) : [];
    // The tool refused commands the worker needed and nothing was delivered: a nudge would be refused
    // the same way, and the model is not to blame. A person widens the allowlist.
    const denials = parsePermissionDenials(log);
    if (denials.length > 0 && !(exit.exitCode === 0 && branchMoved)) {
      const summary = refusedSummary(r.tool, denials);
      await this.finish(r, 'stalled', summary, { exitCode: exit.exitCode, log });
      this.d.events({ type: 'attempt.needs_person', attemptId: r.id, reason: summary });
      return;
    }
    const d = decideExit({ ...this.stopFacts(r), exit, branchMoved, markers });
    switch (d.kind) {
      case 'nudge':
      case 'stalled':
        return this.applyStopped(r, d, 'stopped_early');
      case 'finish':
        return this.finish(r, d.outcome, d.summary, { exitCode: exit.exitCode, log });
      case 'resume':
        throw new Error('an exit with an exit file is never resumed');
      case 'classify': {
        const c = classifyExit({
          exitCode: exit.exitCode,
          branchMoved,
          logTail: log.slice(-16_000),
          spawnError: exit.error,
          // A spend limit's printed reset time travels in the cause, so the run's park can wait for it.
          now: this.d.clock.now(),
          disk: this.diskPlace(r),
        });
        return this.finish(r, c.outcome, c.summary, { exitCode: exit.exitCode, log, cause: c.cause });
      }
    }
  }

  /** Records the attempt's end: `summary` in words for people, `cause` typed for the planner (environment failures). */
  private async finish(
    r: AttemptRecord,
    outcome: AttemptOutcome,
    summary: string,
    more: { exitCode?: number | undefined; log?: string; cause?: FailureCause | undefined } = {},
  ): Promise<void> {
    const { exitCode, cause } = more;
    const log = more.log ?? readWorkerFile(r.logPath);
    const report = parseFinalReport(log);
    const denials = parsePermissionDenials(log);
    // An entry without `model` ran its tool's default: what the tool said it ran prices the attempt.
    const reported = r.model === undefined ? parseReportedModel(log) : undefined;
    const updated = await this.d.ledger.update(r.id, {
      ...(reported ? { model: reported } : {}),
      outcome,
      exitCode,
      endedAt: this.d.clock.now().toISOString(),
      failureSummary: outcome === 'solved' ? undefined : summary,
      // Always written: an end without a cause clears one an earlier end of a resumed attempt left.
      failureCause: outcome === 'environment_failure' ? cause : undefined,
      tokens: parseTokenUsage(log) ?? r.tokens,
      finalReport: report,
      sessionId: r.sessionId ?? parseSessionId(log),
      stallFingerprint: undefined,
      ...(denials.length > 0 ? { permissionDenials: denials } : {}),
    });
    const line = { attemptId: r.id, issue: r.issue.number, outcome, exitCode };
    if (outcome === 'solved') this.d.logger.info(line, 'attempt finished');
    else this.d.logger.warn({ ...line, summary }, 'attempt finished');
    this.d.events({ type: 'attempt.finished', attemptId: r.id, outcome, summary });
    if (outcome === 'unsolved') await this.d.onUnsolved?.(updated);
  }

  /**
   * SIGTERM the worker's group, then SIGKILL whatever is left after a grace period. Only a process this
   * runner spawned for the attempt is signalled, checked again before each signal.
   */
  private async stop(r: AttemptRecord): Promise<void> {
    const pid = r.pid;
    if (pid === undefined || !isOurWorker(r)) return;
    // After the first signal the process may already be a zombie (no argv any more): from here the
    // pid is known by its start time alone.
    const same = () =>
      isAlive(pid) && (r.pidStartTime === undefined || processStartTime(pid) === r.pidStartTime);
    killGroup(pid, 'SIGTERM');
    for (let i = 0; i < 50 && same(); i++) await new Promise((done) => setTimeout(done, 100));
    if (same()) killGroup(pid, 'SIGKILL');
  }
}
