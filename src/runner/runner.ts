// The runner facade: executes one RunnerJob (attempt, resume, cancel, cleanup, gate) with injected
// ports, so the orchestrator here and a remote runner agent later call the same thing.

import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { BlitzConfig } from '../config/blitz-config.ts';
import { entryEnv } from '../config/worker-env.ts';
import { AppError, isAppError } from '../errors.ts';
import { createKeyedRunner } from '../keyed-runner.ts';
import type { Logger } from '../observability/logger.ts';
import { attemptBranch } from './branch-names.ts';
import { BuildGate, type GateResult } from './build-gate.ts';
import { cleanupRepo, sweepClosedIssueWorkspaces } from './cleanup.ts';
import { diskFullSummary, isDiskFull } from './failure-class.ts';
import { type CredentialsProvider, type GitContext, gitTry } from './git.ts';
import { withChangedFiles } from './handoff.ts';
import { createJail, type JailPlace, type WorkerJail, worktreeGitReadable } from './jail.ts';
import { type MachineLimit, machineLimit, sampleMachine } from './machine.ts';
import { modelEndpoints } from './model-endpoints.ts';
import { buildPrompt, isFeedbackReason } from './prompt.ts';
import { isOurWorker, Supervisor, thisProcess } from './supervisor.ts';
import { commandFor, jobEntry, sessionsOf } from './tools/index.ts';
import { placeholderEnv, placeholdersOf } from './tools/placeholders.ts';
import {
  type AttemptJob,
  type AttemptLedger,
  type AttemptRecord,
  type CleanupJob,
  type Clock,
  type EventSink,
  expectedBaseSha,
  type FailureCause,
  type GateJob,
  type RunnerJob,
  runnerJobSchema,
  type SurvivedWork,
} from './types.ts';
import { filesWithMarkersAt, WorkerGit } from './worker-git.ts';
import { chownTree, resolveWorkerUser, sameUserWarning, type WorkerUser } from './worker-user.ts';
import { ensureClone, insideWorkspace, repoDirFor } from './workspace.ts';
import {
  ensureAttemptRepo,
  mergeBaseInto,
  readStartRefs,
  removeAttemptRepo,
  type StartRefs,
  worktreePathFor,
} from './worktrees.ts';

export interface RunnerDeps {
  config: BlitzConfig['runner'];
  ledger: AttemptLedger;
  clock: Clock;
  events: EventSink;
  logger: Logger;
  credentials: CredentialsProvider;
  /** Environment every git command and worker starts from (PATH, HOME…), from config/. */
  baseEnv: Record<string, string>;
  /** The runner's own environment, where a roster entry's `env` `fromEnv` names are read; default process.env. */
  hostEnv?: NodeJS.ProcessEnv;
  newId?: () => string;
  /** This machine's name, written on every attempt (the bot's runner; see AttemptRecord.host). */
  host?: string;
  /** The bot's uid (tests); default the process's. */
  botUid?: number;
  /** The bot's /proc/self/status text, for its capabilities (tests); default read at start. */
  procStatus?: string;
  /**
   * False on a bot whose jobs all go to remote runners (BLITZ_LOCAL_RUNNER=false): it runs gates and
   * cleanups but never a worker, so it needs no worker user (nor root to switch to one).
   */
  startsWorkers?: boolean;
  /**
   * Where an unsolved attempt's retry goes: the bot enqueues it as a new job (any runner may claim
   * it). Without it (a runner with no queue behind it) the retry starts here, from the stored job.
   */
  requeue?: (r: AttemptRecord) => Promise<unknown>;
  /** Told when a worker this process started exits (Supervisor's onWorkerExit): call collectExits. */
  onWorkerExit?: (attemptId: string) => void;
  /**
   * Paths no sandboxed worker or gate may see (the bot's data directory, database, `.env`, config and
   * secret files: `botPrivatePaths` in config/env.ts).
   */
  hidden?: readonly string[];
  /** The jail workers and gates start through (tests); default the one `runner.sandbox` asks for. */
  jail?: WorkerJail;
}

/** A command made ready to run as the worker: its argv through the jail, environment and ids. */
export interface JailedCommand {
  argv: string[];
  env: Record<string, string>;
  uid?: number;
  gid?: number;
}

export type RunnerJobResult =
  | { kind: 'attempt'; attempt: AttemptRecord }
  | { kind: 'resume'; attempt: AttemptRecord; survived: SurvivedWork }
  | { kind: 'cancel'; attempt: AttemptRecord }
  | { kind: 'cleanup'; removed: string[]; kept: string[]; deletedBranches: string[] }
  | { kind: 'gate'; name: 'build' | 'smoke'; result: GateResult };

const GUIDANCE = ['CLAUDE.md', 'AGENTS.md', 'DESIGN.md', 'docs/DESIGN.md'];

/** Whether argv[0] can be started: a path that exists, or a name found on PATH. */
export const findExecutable = (name: string, path: string | undefined): boolean =>
  name.includes('/')
    ? existsSync(name)
    : (path ?? '').split(delimiter).some((d) => d && existsSync(join(d, name)));

export class Runner {
  readonly supervisor: Supervisor;
  readonly gate: BuildGate;
  private readonly workspace: string;
  // Two attempts on one repo never clone, fetch or add worktrees in one clone at once (git's ref locks).
  private readonly repoLock = createKeyedRunner(() => undefined);
  /** When the last successful fetch of each repo's clone began (performance.now()). */
  private readonly fetchedAt = new Map<string, number>();
  /** Clones whose origin this runner has checked (or made): dir → clone URL. */
  private readonly knownOrigins = new Map<string, string>();
  private readonly workerUser: WorkerUser | undefined;
  /** What workers and gates run in: the worker's uid and, by default, a bubblewrap sandbox. */
  readonly jail: WorkerJail;
  /** git in workers' repositories, as the worker (in its jail): the only git that reads one. */
  readonly workerGit: WorkerGit;

  constructor(private readonly d: RunnerDeps) {
    this.workspace = resolve(d.config.workspace);
    mkdirSync(this.workspace, { recursive: true });
    const botUid = d.botUid ?? process.getuid?.() ?? -1;
    this.workerUser =
      d.startsWorkers === false
        ? undefined
        : resolveWorkerUser(d.config, {
            botUid,
            ...(d.procStatus !== undefined ? { procStatus: d.procStatus } : {}),
          });
    if (!this.workerUser && d.startsWorkers !== false)
      d.logger.warn({ uid: botUid }, sameUserWarning(botUid));
    this.jail =
      d.jail ??
      createJail({
        ...(d.config.sandbox ? { sandbox: d.config.sandbox } : {}),
        network: d.config.network ?? 'full',
        ...(this.workerUser ? { user: this.workerUser } : {}),
        hidden: d.hidden ?? [],
        stateDir: insideWorkspace(this.workspace, '.sandbox'),
        path: d.baseEnv.PATH,
        logger: d.logger,
      });
    this.workerGit = new WorkerGit(this.jail, d.baseEnv, (path) => this.cacheObjectsOf(path));
    this.gate = new BuildGate(d.config.buildConcurrency);
    this.supervisor = new Supervisor({
      ledger: d.ledger,
      clock: d.clock,
      events: d.events,
      logger: d.logger,
      gitContext: (repo, opts) => this.gitContext(repo, opts),
      // No forge credential reaches a worker: it commits, and the supervisor pushes its branch.
      workerEnv: async (r, promptFile) => ({
        env: {
          ...d.baseEnv,
          ...entryEnv(r.job.entry.env, d.hostEnv),
          ...placeholderEnv(placeholdersOf(r, promptFile)),
          GIT_TERMINAL_PROMPT: '0',
          BLITZ_ATTEMPT_ID: r.id,
        },
        secrets: [],
      }),
      ...(this.workerUser ? { workerUser: this.workerUser } : {}),
      workerGit: this.workerGit,
      baseEnv: d.baseEnv,
      jail: this.jail,
      jailPlace: (r) => this.workerPlace(r),
      maxNudges: d.config.maxNudges,
      attemptTimeoutMs: d.config.attemptTimeoutMinutes * 60_000,
      minFreeBytes: d.config.minFreeDiskMb * 1024 * 1024,
      ...(d.host ? { host: d.host } : {}),
      onUnsolved: (r) => this.retry(r),
      ...(d.onWorkerExit ? { onWorkerExit: d.onWorkerExit } : {}),
    });
  }

  /**
   * Where a worker runs: its repository and its attempt directory writable, a private HOME in that
   * directory, the runner's cache of the repository's objects read-only (its repository borrows them
   * through `objects/info/alternates`) and the endpoints its roster entry needs.
   */
  private workerPlace(r: AttemptRecord): JailPlace {
    const attemptDir = dirname(r.exitPath);
    const own = entryEnv(r.job.entry.env, this.d.hostEnv);
    const env = { ...this.d.baseEnv, ...own };
    // Files and directories the operator's roster entry names in its environment (a CLI's config file)
    // are shown read-only; HOME never is: the sandbox gives the worker its own.
    const named = Object.entries(own).flatMap(([k, v]) => (k !== 'HOME' && isAbsolute(v) ? [v] : []));
    return {
      cwd: r.worktree,
      writable: [r.worktree, attemptDir],
      home: join(attemptDir, 'home'),
      endpoints: modelEndpoints(r.job.entry, env),
      readable: [...this.cacheObjectsOf(r.worktree), ...named],
    };
  }

  /**
   * The objects directory of the runner's cache that an attempt repository at `path` borrows from,
   * found from the path alone (`<workspace>/.worktrees/<owner>/<repo>/<branch>`): never from the
   * repository's own alternates file, which its worker can rewrite to name any directory.
   */
  private cacheObjectsOf(path: string): string[] {
    const rel = relative(join(this.workspace, '.worktrees'), resolve(path)).split(sep);
    if (rel.length !== 3 || rel[0] === '..' || !rel[0] || !rel[1]) return [];
    try {
      return [join(repoDirFor(this.workspace, rel[0], rel[1]), '.git', 'objects')];
    } catch {
      return [];
    }
  }

  /**
   * A gate's command made ready to run as the worker in `cwd` (an attempt repository, or the
   * integration worktree): its uid, its sandbox, the runner's base environment (no forge token, no bot
   * secret) and a HOME of its own that persists across the gates run there (a build's caches).
   */
  async asWorker(
    argv: readonly string[],
    cwd: string,
    opts: { hostNetwork?: boolean; outlivesParent?: boolean } = {},
  ): Promise<JailedCommand> {
    const dir = insideWorkspace(this.workspace, cwd);
    const tag = createHash('sha256').update(dir).digest('hex').slice(0, 16);
    const home = insideWorkspace(this.workspace, '.gate-homes', tag);
    mkdirSync(home, { recursive: true });
    const user = this.jail.user;
    if (user) for (const d of [dir, home]) chownTree(d, user);
    // The integration worktree is the runner's (made fresh before each gate): its `.git` file and the
    // cache's git directory are shown read-only. An attempt repository's `.git` is its worker's to
    // write: only the cache's objects, found from its path, are shown besides.
    const integration = relative(join(this.workspace, '.integration'), dir);
    const readable =
      integration && !integration.startsWith('..') && !isAbsolute(integration)
        ? worktreeGitReadable(dir)
        : this.cacheObjectsOf(dir);
    const place: JailPlace = { cwd: dir, writable: [dir, home], home, readable, ...opts };
    await this.jail.prepare?.(place);
    return {
      argv: this.jail.wrap(argv, place),
      env: {
        ...this.d.baseEnv,
        HOME: home,
        ...(user ? { USER: user.name, LOGNAME: user.name } : {}),
      },
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    };
  }

  /** `credentials: false`: a context for local git only, without asking the provider. */
  async gitContext(
    repo: { owner: string; name: string },
    opts: { credentials?: boolean } = {},
  ): Promise<GitContext> {
    return {
      env: this.d.baseEnv,
      knownOrigins: this.knownOrigins,
      ...(opts.credentials === false ? {} : { credentials: await this.d.credentials(repo) }),
    };
  }

  /** The number of workers this host takes now: maxSessions, or 1 when contended. */
  limit(): MachineLimit {
    return machineLimit(sampleMachine(), this.d.config.maxSessions);
  }

  async execute(input: RunnerJob): Promise<RunnerJobResult> {
    const job = runnerJobSchema.parse(input);
    if (this.d.startsWorkers === false && (job.kind === 'attempt' || job.kind === 'resume'))
      throw new AppError(
        'conflict',
        `This bot starts no workers (BLITZ_LOCAL_RUNNER=false): a ${job.kind} job is a runner's.`,
      );
    switch (job.kind) {
      case 'attempt':
        return { kind: 'attempt', attempt: await this.startAttempt(job) };
      case 'resume': {
        const r = await this.mustGet(job.attemptId);
        if (job.interrupt) {
          if (job.reason !== 'tell')
            throw new AppError('bad_request', 'Only a tell resume interrupts a running session.');
          if (
            r.outcome !== undefined ||
            !isOurWorker(r) ||
            (r.feedbackResumes ?? 0) !== job.interrupt.feedbackResumes
          )
            throw new AppError(
              'conflict',
              `Attempt ${r.id} is no longer the running session the message was for; the bot keeps it for the next resume.`,
            );
          if (job.feedback === undefined)
            throw new AppError('bad_request', 'A tell resume carries its feedback text.');
          // A nudge that carries the message: the session stops where it is and goes on with it.
          const survived = await this.supervisor.interruptAndResume(r, 'tell', {
            reason: 'tell',
            text: job.feedback,
          });
          return { kind: 'resume', attempt: await this.mustGet(r.id), survived };
        }
        if (isOurWorker(r)) {
          throw new AppError(
            'conflict',
            `Attempt ${r.id} is still running (pid ${r.pid}); it cannot be resumed twice.`,
          );
        }
        let conflictFiles = job.conflictFiles;
        if (job.mergeBase) {
          // A conflict, or the bot's tell that the base moved under the session (plan/base-change.ts).
          if (job.reason !== 'conflict' && job.reason !== 'tell')
            throw new AppError('bad_request', 'mergeBase goes with a resume for a conflict or a tell only.');
          const ctx = await this.gitContext(r.issue.repo);
          conflictFiles = await mergeBaseInto(
            this.workerGit,
            this.supervisor.repoOf(r),
            r.repoDir,
            job.mergeBase,
            ctx,
          );
          await this.d.ledger.update(r.id, { conflictFiles });
        }
        if (isFeedbackReason(job.reason) && job.feedback === undefined)
          throw new AppError('bad_request', `A ${job.reason} resume carries its feedback text.`);
        const survived = await this.supervisor.resume(
          await this.mustGet(r.id),
          job.reason,
          job.reason === 'conflict'
            ? { reason: 'conflict', conflictFiles }
            : isFeedbackReason(job.reason)
              ? { reason: job.reason, text: job.feedback ?? '' }
              : { reason: job.reason === 'nudge' ? 'stalled' : 'interrupted' },
        );
        return { kind: 'resume', attempt: await this.mustGet(r.id), survived };
      }
      case 'cancel': {
        const r = await this.mustGet(job.attemptId);
        if (r.outcome === undefined) await this.supervisor.cancel(r);
        return { kind: 'cancel', attempt: await this.mustGet(r.id) };
      }
      case 'cleanup': {
        const git = await this.gitContext(job.repo);
        if (job.closedIssues === undefined)
          return { kind: 'cleanup', ...(await this.cleanupAfterMerge(job, git)) };
        // The start-up sweep touches nothing but closed issues' worktrees, and never one a worker holds
        // (an attempt with no outcome yet: running, or finished while the bot was down and not collected).
        const busy = (await this.d.ledger.listOpen()).flatMap((a) => (a.worktree ? [a.worktree] : []));
        const swept = await sweepClosedIssueWorkspaces(
          this.workspace,
          job.repo,
          job.closedIssues,
          busy,
          git,
          this.workerGit,
        );
        return {
          kind: 'cleanup',
          removed: swept.removed,
          kept: swept.kept.map((k) => `${k.path}: ${k.reason}`),
          deletedBranches: swept.deletedBranches,
        };
      }
      case 'gate':
        return { kind: 'gate', name: job.name, result: await this.runGate(job) };
    }
  }

  /** One supervision pass: completions, stalls, timeouts. Called on the node-cron tick. */
  tick(opts: { stalls?: boolean } = {}): Promise<void> {
    return this.supervisor.tick(opts);
  }

  /** Collects exited workers now, after the supervision pass under way (a worker just exited). */
  collectExits(): Promise<void> {
    return this.supervisor.collectExits();
  }

  /** After a restart: re-attach live workers and classify dead ones (the first tick does both). */
  async reattach(): Promise<void> {
    await this.supervisor.tick();
    await this.supervisor.watchReattached();
  }

  /** Stops watching re-attached workers' exits (the bot stops; the workers run on). */
  stopWatching(): void {
    this.supervisor.unwatchAll();
  }

  private async mustGet(id: string): Promise<AttemptRecord> {
    const r = await this.d.ledger.get(id);
    if (!r) throw new AppError('not_found', `No attempt ${id}.`);
    return r;
  }

  private async startAttempt(job: AttemptJob): Promise<AttemptRecord> {
    const id = this.d.newId?.() ?? randomUUID();
    const repoName = `${job.issue.repo.owner}/${job.issue.repo.name}`;
    const branch = attemptBranch(job);
    const dir = insideWorkspace(this.workspace, '.attempts', id);
    const now = this.d.clock.now().toISOString();
    const record: AttemptRecord = {
      id,
      runId: job.runId,
      issue: job.issue,
      rosterEntry: job.entry.name,
      tool: job.entry.tool,
      model: job.entry.model,
      tier: job.tier,
      branch,
      baseBranch: job.baseBranch,
      repoDir: '',
      worktree: '',
      logPath: join(dir, 'worker.log'),
      promptPath: join(dir, 'prompt.md'),
      exitPath: join(dir, 'exit.json'),
      argvRedacted: [],
      originShaAtStart: null,
      startedAt: now,
      launchedAt: now,
      nudges: 0,
      tokens: { input: 0, output: 0 },
      job,
      ...(this.d.host ? { host: this.d.host } : {}),
      // Who sets it up: if this process dies before the worker has a pid, the supervisor knows at once.
      setupBy: thisProcess(),
      // Its own session per attempt, so a resume never picks up another worker's session.
      ...(sessionsOf(job.entry) === 'chosen' ? { sessionId: randomUUID() } : {}),
    };
    // One worker per issue: a job the queue delivered again (its holder died and its lease ran out)
    // after the issue was dispatched anew is refused here by the ledger (OpenAttemptError), atomically
    // on the store, and starts nothing.
    await this.d.ledger.create(record);
    let created: { repoDir: string; path: string } | undefined;
    // The roster entry's own command is not on this host (not git or another tool the setup runs).
    let agentMissing = false;
    try {
      mkdirSync(dir, { recursive: true });
      const probe = commandFor(
        job.entry,
        placeholdersOf({ ...record, worktree: '.' }, record.promptPath),
        'start',
      );
      const bin = probe?.argv[0] ?? '';
      if (!findExecutable(bin, this.d.baseEnv.PATH)) {
        agentMissing = true;
        throw new AppError(
          'tool_missing',
          `Roster entry ${job.entry.name}: command "${bin}" was not found on this host.`,
        );
      }
      // Reading refs and checking out talk to no remote: no credentials in their environment.
      const local = await this.gitContext(job.issue.repo, { credentials: false });
      // Asked before the lock, as ever, for a job that will fetch: the provider may be slow.
      const remote = expectedBaseSha(job) ? undefined : this.gitContext(job.issue.repo);
      const asked = performance.now();
      const { repoDir, wt } = await this.repoLock.exclusive(repoName, async () => {
        // A redo after a bounce (its first try only: a retry goes on from that try's work).
        if (job.fresh && job.retry === 0) await this.dropOldWork(job, branch, record.id, local);
        // Jobs that queued on the lock while another fetched: a fetch that began after this job asked
        // already holds everything origin had then, so a burst of N jobs costs two fetches, not N.
        const fresh = (this.fetchedAt.get(repoName) ?? -1) > asked;
        // A clone already at the base the bot expects needs no fetch (nor credentials) either.
        const current = fresh ? undefined : await this.atExpectedBase(job, branch, local);
        if (current) {
          const wt = await ensureAttemptRepo(this.placeOf(job, current.repoDir, branch), local, current.refs);
          return { repoDir: current.repoDir, wt };
        }
        const ctx = await (remote ?? this.gitContext(job.issue.repo));
        const began = performance.now();
        const repoDir = await ensureClone(
          this.workspace,
          job.issue.repo,
          job.cloneUrl,
          ctx,
          !fresh,
          this.knownOrigins,
        );
        if (!fresh) this.fetchedAt.set(repoName, began);
        const wt = await ensureAttemptRepo(this.placeOf(job, repoDir, branch), local);
        return { repoDir, wt };
      });
      if (!wt.reused) created = { repoDir, path: wt.path };
      // ensureClone has just fetched (with --prune): origin's branch is its tracking ref, no ls-remote;
      // a new worktree read it already, choosing where to start from.
      const originShaAtStart = wt.reused
        ? (
            await gitTry(
              ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}`],
              repoDir,
              local,
            )
          )?.trim() || null
        : wt.originSha;
      const prompt = buildPrompt({
        repo: repoName,
        issue: job.issue.number,
        title: job.title,
        body: job.body,
        branch,
        baseBranch: job.baseBranch,
        guidanceFiles: GUIDANCE.filter((f) => existsSync(join(wt.path, f))),
        fences: job.fences,
        planText: job.planText,
        failureFeedback: job.failureFeedback,
        deliverable: job.deliverable,
        instructions: job.instructions,
        handoff: await withChangedFiles(job.handoff, repoDir, local),
      });
      writeFileSync(record.promptPath, prompt);
      writeFileSync(record.logPath, '');
      const ready = await this.d.ledger.update(id, { repoDir, worktree: wt.path, originShaAtStart });
      const cmd = commandFor(
        jobEntry(job),
        placeholdersOf(ready, record.promptPath),
        'start',
        ready.sessionId,
      )!;
      await this.supervisor.launch(ready, cmd.argv, cmd.stdinFile);
      return this.mustGet(id);
    } catch (err) {
      // Nothing half-made: the attempt is recorded as failed with a clear reason, and no process runs.
      const message = err instanceof Error ? err.message : String(err);
      if (created) {
        await removeAttemptRepo(created.path);
        await gitTry(['branch', '-D', branch], created.repoDir, await this.gitContext(job.issue.repo));
      }
      const outcome = isAppError(err, 'bad_request') ? 'unsolved' : 'environment_failure';
      // A full disk met while setting up (clone, worktree, prompt) parks the run like one met later.
      const full = isDiskFull(message)
        ? diskFullSummary({ host: this.d.host ?? hostname(), path: dir })
        : undefined;
      // The agent CLI not found here blocks the run until it is installed (plan/tool-blocker.ts).
      const cause: FailureCause | undefined = agentMissing
        ? { kind: 'missing_tool' }
        : full
          ? { kind: 'environment', cause: 'disk_full' }
          : undefined;
      const failed = await this.d.ledger.update(id, {
        outcome,
        failureSummary: full ?? message,
        ...(outcome === 'environment_failure' && cause ? { failureCause: cause } : {}),
        endedAt: this.d.clock.now().toISOString(),
      });
      this.d.logger.warn(
        { attemptId: id, issue: job.issue.number, outcome, message },
        'attempt could not start',
      );
      this.d.events({ type: 'attempt.finished', attemptId: id, outcome, summary: message });
      return failed;
    }
  }

  /**
   * A cleanup after a merge, one per clone at a time under the clone's lock: cleanups of merges close
   * together each deleted every merged branch (all but one failing) and raced for the clone's refs. A
   * fetch that began after this one asked (another cleanup's, a job start's) already holds what origin
   * had then: no second fetch.
   */
  private cleanupAfterMerge(job: CleanupJob, git: GitContext) {
    const repoName = `${job.repo.owner}/${job.repo.name}`;
    const asked = performance.now();
    return this.repoLock.exclusive(repoName, async () => {
      const repoDir = repoDirFor(this.workspace, job.repo.owner, job.repo.name);
      if ((this.fetchedAt.get(repoName) ?? -1) <= asked && existsSync(repoDir)) {
        const began = performance.now();
        if ((await gitTry(['fetch', '--prune', '--quiet', 'origin'], repoDir, git)) !== undefined)
          this.fetchedAt.set(repoName, began);
      }
      return cleanupRepo(this.workspace, job, this.d.ledger, git, this.workerGit, false);
    });
  }

  /** Where an attempt's repository is made: from the runner's clone (the cache), for its worker. */
  private placeOf(job: AttemptJob, cacheDir: string, branch: string) {
    return {
      workspace: this.workspace,
      cacheDir,
      repo: job.issue.repo,
      branch,
      baseBranch: job.baseBranch,
      cloneUrl: job.cloneUrl,
      ...(this.workerUser ? { user: this.workerUser } : {}),
    };
  }

  /**
   * Of `files`, those that still hold a conflict marker line in the HEAD of an attempt's repository,
   * read as its worker (a fleet merge checks a resolved conflict with it).
   */
  async markedFiles(attemptId: string, files: readonly string[]): Promise<string[]> {
    const r = await this.mustGet(attemptId);
    return filesWithMarkersAt(this.workerGit, this.supervisor.repoOf(r), files);
  }

  /**
   * Forgets the issue's old work on this host, so that the attempt starts off the base branch as origin
   * has it: the attempt repository of the branch (unless an open attempt still uses it) and the cache's
   * local branch. Origin's branch is the bot's to delete (a bounce does); a fetch then prunes its
   * tracking ref.
   */
  private async dropOldWork(job: AttemptJob, branch: string, self: string, local: GitContext): Promise<void> {
    const path = worktreePathFor(this.workspace, job.issue.repo, branch);
    const open = await this.d.ledger.listOpen();
    if (open.some((a) => a.id !== self && a.worktree === path)) return;
    if (existsSync(path)) await removeAttemptRepo(path);
    const repoDir = repoDirFor(this.workspace, job.issue.repo.owner, job.issue.repo.name);
    if (existsSync(repoDir)) await gitTry(['update-ref', '-d', `refs/heads/${branch}`], repoDir, local);
    this.d.logger.info({ issue: job.issue.number, branch }, 'a redo starts afresh off its base branch');
  }

  /**
   * The clone and its refs when they already hold what a new worktree of the job starts from: the job
   * carries a base sha (`expectedBaseSha`), the clone exists and tracks origin's base branch at exactly
   * that commit, and it knows nothing of the attempt's branch (no worktree, local branch or tracking
   * ref: an earlier attempt's work may be on origin, only a fetch would tell). Undefined: fetch.
   */
  private async atExpectedBase(
    job: AttemptJob,
    branch: string,
    local: GitContext,
  ): Promise<{ repoDir: string; refs: StartRefs } | undefined> {
    const expected = expectedBaseSha(job);
    if (!expected) return undefined;
    if (!existsSync(repoDirFor(this.workspace, job.issue.repo.owner, job.issue.repo.name))) return undefined;
    if (existsSync(worktreePathFor(this.workspace, job.issue.repo, branch))) return undefined;
    // No fetch: only the clone's origin is checked (once per runner), with no credentials.
    const repoDir = await ensureClone(
      this.workspace,
      job.issue.repo,
      job.cloneUrl,
      local,
      false,
      this.knownOrigins,
    );
    const refs = await readStartRefs(repoDir, branch, job.baseBranch, local);
    return refs.base === expected && !refs.local && !refs.remote ? { repoDir, refs } : undefined;
  }

  /** Retries an unsolved attempt with its failure fed back, up to `retries` times. */
  private async retry(r: AttemptRecord): Promise<void> {
    // Only an attempt this runner started is retried here, from the job it stored: never a remote
    // runner's (which retries its own).
    if (r.runner !== undefined || r.job.retry >= this.d.config.retries) return;
    if (this.d.requeue) {
      await this.d.requeue(r);
      return;
    }
    const next = await this.startAttempt({
      ...r.job,
      retry: r.job.retry + 1,
      failureFeedback: r.failureSummary,
    });
    this.d.events({
      type: 'attempt.retried',
      attemptId: r.id,
      nextAttemptId: next.id,
      retry: r.job.retry + 1,
    });
  }

  private async runGate(job: GateJob): Promise<GateResult> {
    const where = job.attemptId ? (await this.mustGet(job.attemptId)).worktree : job.cwd;
    if (!where) throw new AppError('bad_request', 'A gate job names a directory or an attempt.');
    const cwd = insideWorkspace(this.workspace, where);
    // Build and smoke commands are the repository's own code: they run as its worker, never as the bot.
    const cmd = await this.asWorker(job.argv, cwd);
    const result = await this.gate.run(cmd.argv, {
      cwd,
      env: cmd.env,
      timeoutMs: job.timeoutSeconds * 1000,
      ...(cmd.uid !== undefined ? { uid: cmd.uid, gid: cmd.gid! } : {}),
    });
    this.d.events({
      type: 'gate.finished',
      name: job.name,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
    });
    return result;
  }
}
