// Supervision of detached workers: launch through the exit-recording wrapper, re-attach after a
// restart, and on each tick detect completion (process exited cleanly AND the branch on origin holds
// commits ahead of its base), stalls, endpoint failures the CLI keeps retrying, and timeouts. Every
// terminal state is written to the ledger, emitted as an event and logged.
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Logger } from '../observability/logger.ts';
import { parseSessionId, parseTokenUsage } from './agent-output.ts';
import { isAlive, killGroup, redactArgv, spawnDetached } from './exec.ts';
import { classifyExit, liveEnvironmentProblem } from './failure-class.ts';
import { parseFinalReport } from './final-report.ts';
import { type GitContext, gitTry, remoteBranchSha } from './git.ts';
import { buildNudge, type NudgeSituation } from './prompt.ts';
import { stallCheck } from './stall.ts';
import { commandFor, toolAdapters } from './tools/index.ts';
import type { PlaceholderValues } from './tools/placeholders.ts';
import type {
  AttemptLedger,
  AttemptOutcome,
  AttemptRecord,
  Clock,
  EventSink,
  ResumeReason,
  SurvivedWork,
} from './types.ts';
import { commitsAheadOfBase, conflictMarkers, survivedWork } from './worktrees.ts';

export const wrapperPath = fileURLToPath(new URL('./worker-wrapper.mjs', import.meta.url));

const exitFileSchema = z.object({
  exitCode: z.number().int(),
  signal: z.string().nullable().optional(),
  error: z.string().optional(),
});

/** The wrapper's exit record; undefined when missing or unreadable (then the worker was interrupted). */
export const readExitFile = (path: string): z.infer<typeof exitFileSchema> | undefined => {
  if (!existsSync(path)) return undefined;
  try {
    const parsed = exitFileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/** The last `bytes` of a file (a worker log can grow large; its end is what a live check reads). */
export const readTail = (path: string, bytes: number): string => {
  if (!existsSync(path)) return '';
  const size = statSync(path).size;
  const length = Math.min(size, bytes);
  const buf = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  return buf.toString('utf8');
};

export interface SupervisorDeps {
  ledger: AttemptLedger;
  clock: Clock;
  events: EventSink;
  logger: Logger;
  /** git environment (and credentials) for a repo. */
  gitContext: (repo: { owner: string; name: string }) => Promise<GitContext>;
  /** Environment for a worker process of this attempt. */
  workerEnv: (
    record: AttemptRecord,
    promptFile: string,
  ) => Promise<{ env: Record<string, string>; secrets: string[] }>;
  maxNudges: number;
  attemptTimeoutMs: number;
  /** Called when an attempt ends unsolved, so the runner can retry it with the failure fed back. */
  onUnsolved?: (record: AttemptRecord) => Promise<void>;
}

/** True when pid runs our wrapper for this attempt (pids get reused: a live pid alone proves nothing). */
export const isOurWorker = (pid: number, exitPath: string): boolean => {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(exitPath);
  } catch {
    return false;
  }
};

export const placeholdersOf = (r: AttemptRecord, promptFile: string): PlaceholderValues => ({
  promptFile,
  worktree: r.worktree,
  branch: r.branch,
  baseBranch: r.baseBranch,
  issue: r.issue.number,
  repo: `${r.issue.repo.owner}/${r.issue.repo.name}`,
  model: r.model,
});

export class Supervisor {
  private ticking = false;
  constructor(private readonly d: SupervisorDeps) {}

  /** Starts the worker for `record` with argv; returns the pid (also written to the ledger). */
  async launch(record: AttemptRecord, argv: string[], stdinFile?: string): Promise<number> {
    const { env, secrets } = await this.d.workerEnv(record, stdinFile ?? record.promptPath);
    rmSync(record.exitPath, { force: true });
    const { pid } = spawnDetached(['node', wrapperPath, record.exitPath, '--', ...argv], {
      cwd: record.worktree,
      env,
      logFile: record.logPath,
      stdinFile,
    });
    await this.d.ledger.update(record.id, {
      pid,
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
  async tick(opts: { stalls?: boolean } = {}): Promise<void> {
    // A slow pass (many workers, a slow remote) must not overlap the next one.
    if (this.ticking) return;
    this.ticking = true;
    try {
      for (const r of await this.d.ledger.listOpen()) {
        try {
          await this.check(r, opts);
        } catch (err) {
          this.d.logger.error({ attemptId: r.id, err }, 'supervision check failed');
        }
      }
    } finally {
      this.ticking = false;
    }
  }

  async check(r: AttemptRecord, opts: { stalls?: boolean } = {}): Promise<void> {
    if (r.pid === undefined) {
      // Still being set up (clone, worktree) by startAttempt; only a long-dead setup is closed here.
      const age = this.d.clock.now().getTime() - Date.parse(r.startedAt);
      if (age > this.d.attemptTimeoutMs) {
        await this.finish(r, 'environment_failure', 'The worker never started (setup was interrupted).');
      }
      return;
    }
    const exited = existsSync(r.exitPath) || !isOurWorker(r.pid, r.exitPath);
    if (exited) return this.onExit(r);
    // A CLI retrying a dead endpoint keeps writing its log (codex forever), so neither the stall
    // check nor the exit would catch it before the timeout: its own retry lines end it here.
    const problem = liveEnvironmentProblem(readTail(r.logPath, 16_000));
    if (problem) {
      await this.stop(r.pid);
      return this.finish(r, 'environment_failure', `Environment failure: ${problem}.`);
    }
    const ctx = await this.d.gitContext(r.issue.repo);
    if (this.d.clock.now().getTime() - Date.parse(r.launchedAt) > this.d.attemptTimeoutMs) {
      await this.stop(r.pid);
      return this.finish(r, 'unsolved', 'Timed out and was stopped.');
    }
    if (opts.stalls === false) return;
    const obs = {
      logSize: existsSync(r.logPath) ? statSync(r.logPath).size : 0,
      head: (await gitTry(['rev-parse', 'HEAD'], r.worktree, ctx))?.trim() ?? null,
      remote: await remoteBranchSha(r.worktree, r.branch, ctx).catch(() => null),
    };
    // The previous observation lives in the ledger, so the first check after a restart already counts.
    const { stalled } = stallCheck({ last: r.stallFingerprint }, obs);
    if (!stalled) await this.d.ledger.update(r.id, { stallFingerprint: obs });
    if (stalled) {
      await this.stop(r.pid);
      await this.nudgeOrGiveUp(r, 'stalled');
    }
  }

  /** Resumes the same session in its worktree (a nudge, an interrupted worker, or a base merge to finish). */
  async resume(r: AttemptRecord, reason: ResumeReason, situation: NudgeSituation): Promise<SurvivedWork> {
    const ctx = await this.d.gitContext(r.issue.repo);
    const survived = await survivedWork(r.worktree, r.branch, r.baseBranch, ctx);
    const n = r.nudges + (reason === 'nudge' ? 1 : 0);
    const nudgeFile = join(r.promptPath, '..', `nudge-${n}-${Date.now()}.md`);
    const criteria = { branch: r.branch, baseBranch: r.baseBranch, deliverable: r.job.deliverable };
    const nudge = buildNudge(criteria, { ...situation, ...survived });
    const sessionId = this.sessionOf(r);
    // A session tool whose session is unknown (it died before printing one) starts afresh: the
    // nudge then follows the whole task, since no history carries it.
    const afresh = sessionId === undefined && toolAdapters[r.tool].sessions !== 'none';
    writeFileSync(nudgeFile, afresh ? `${readFileSync(r.promptPath, 'utf8')}\n\n${nudge}` : nudge);
    const cmd = commandFor(r.job.entry, placeholdersOf(r, nudgeFile), 'resume', sessionId);
    if (!cmd) throw new Error(`Roster entry ${r.rosterEntry} cannot resume a session.`);
    const updated = await this.d.ledger.update(r.id, {
      nudges: n,
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

  async cancel(r: AttemptRecord): Promise<void> {
    if (r.pid !== undefined && isOurWorker(r.pid, r.exitPath)) await this.stop(r.pid);
    await this.finish(r, 'cancelled', 'Cancelled.');
  }

  /** The session to resume: the one recorded, else the one the log names (codex, opencode). */
  private sessionOf(r: AttemptRecord): string | undefined {
    return r.sessionId ?? parseSessionId(existsSync(r.logPath) ? readFileSync(r.logPath, 'utf8') : '');
  }

  private canResume(r: AttemptRecord): boolean {
    return commandFor(r.job.entry, placeholdersOf(r, r.promptPath), 'resume') !== undefined;
  }

  private async nudgeOrGiveUp(r: AttemptRecord, why: 'stalled' | 'stopped_early'): Promise<void> {
    if (r.nudges < this.d.maxNudges && this.canResume(r)) {
      await this.resume(r, 'nudge', { reason: why });
      return;
    }
    const reason = `Stalled after ${r.nudges} nudge(s); a person has to look at ${r.worktree}.`;
    await this.finish(r, 'stalled', reason);
    this.d.events({ type: 'attempt.needs_person', attemptId: r.id, reason });
  }

  private async onExit(r: AttemptRecord): Promise<void> {
    const ctx = await this.d.gitContext(r.issue.repo);
    const exit = readExitFile(r.exitPath);
    if (!exit) {
      // The wrapper died without writing its exit (host restart, kill -9): the worker was interrupted.
      if (this.canResume(r)) {
        await this.resume(r, 'interrupted', { reason: 'interrupted' });
        return;
      }
      return this.finish(r, 'unsolved', 'The worker disappeared without an exit code.');
    }
    if (exit.exitCode === 0 && !toolAdapters[r.tool].pushesItself) {
      const { unpushedCommits } = await survivedWork(r.worktree, r.branch, r.baseBranch, ctx);
      if (unpushedCommits > 0)
        await gitTry(['push', '--quiet', '-u', 'origin', `HEAD:refs/heads/${r.branch}`], r.worktree, ctx);
    }
    const remote = await remoteBranchSha(r.worktree, r.branch, ctx).catch(() => null);
    // Work is commits ahead of the base on origin. A branch that moved with none (an issue branch
    // pushed new at the base's tip) delivered nothing. One that did not move but holds commits ahead
    // carries an earlier attempt's work (a runner that died after pushing, a lease that moved the job
    // here): a worker that finds it done and exits cleanly delivered it. A bounce deletes the branch,
    // so what is on it is this pass's work.
    const ahead =
      remote === null ? 0 : await commitsAheadOfBase(r.worktree, r.branch, remote, r.baseBranch, ctx);
    const branchMoved = ahead > 0;
    if (branchMoved && remote === r.originShaAtStart && exit.exitCode === 0) {
      this.d.logger.info(
        { attemptId: r.id, issue: r.issue.number, commits: ahead },
        'the branch already held the work of an earlier attempt',
      );
    }
    const log = existsSync(r.logPath) ? readFileSync(r.logPath, 'utf8') : '';
    if (exit.exitCode === 0 && !branchMoved) return this.nudgeOrGiveUp(r, 'stopped_early');
    if (exit.exitCode === 0 && remote) {
      // Seed 004: a truncated conflict listing once hid hunks; never call a branch with markers solved.
      const marked = await conflictMarkers(r.worktree, r.branch, remote, ctx);
      if (marked.length) {
        const summary = `Conflict markers left in ${marked.join(', ')}.`;
        return this.finish(r, 'unsolved', summary, exit.exitCode, log);
      }
    }
    const c = classifyExit({
      exitCode: exit.exitCode,
      branchMoved,
      logTail: log.slice(-16_000),
      spawnError: exit.error,
    });
    await this.finish(r, c.outcome, c.summary, exit.exitCode, log);
  }

  private async finish(
    r: AttemptRecord,
    outcome: AttemptOutcome,
    summary: string,
    exitCode?: number,
    logText?: string,
  ): Promise<void> {
    const log = logText ?? (existsSync(r.logPath) ? readFileSync(r.logPath, 'utf8') : '');
    const report = parseFinalReport(log);
    const updated = await this.d.ledger.update(r.id, {
      outcome,
      exitCode,
      endedAt: this.d.clock.now().toISOString(),
      failureSummary: outcome === 'solved' ? undefined : summary,
      tokens: parseTokenUsage(log) ?? r.tokens,
      finalReport: report,
      sessionId: r.sessionId ?? parseSessionId(log),
      stallFingerprint: undefined,
    });
    const line = { attemptId: r.id, issue: r.issue.number, outcome, exitCode };
    if (outcome === 'solved') this.d.logger.info(line, 'attempt finished');
    else this.d.logger.warn({ ...line, summary }, 'attempt finished');
    this.d.events({ type: 'attempt.finished', attemptId: r.id, outcome, summary });
    if (outcome === 'unsolved') await this.d.onUnsolved?.(updated);
  }

  /** SIGTERM the group, then SIGKILL whatever is left after a grace period. */
  private async stop(pid: number): Promise<void> {
    killGroup(pid, 'SIGTERM');
    for (let i = 0; i < 50 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(pid)) killGroup(pid, 'SIGKILL');
  }
}
