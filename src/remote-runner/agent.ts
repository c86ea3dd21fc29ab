// `blitz-bot runner`: an agent on a runner host. It registers (tools, roles, repos, max sessions),
// claims jobs over HTTP while it has free sessions, runs them with the Runner facade, heartbeats
// the leases it holds, and reports attempts and results through the outbox, which buffers to disk
// while the bot is away. A job is completed when every attempt started under it has an outcome.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BlitzConfig } from '../config/blitz-config.ts';
import type { Logger } from '../observability/logger.ts';
import { jobOutput } from '../queue/dispatch.ts';
import { findExecutable, Runner } from '../runner/runner.ts';
import { asClaimed, isOpenAttemptRefusal, runnerJobSchema, systemClock } from '../runner/types.ts';
import type { RunnerAdvert } from '../store/runner-tokens.ts';
import type { RunnerClient } from './client.ts';
import { Outbox } from './outbox.ts';
import { issueKey, ReportingLedger } from './reporting-ledger.ts';
import { type Held, heartbeatMsFor, resumeHeldJobs } from './resume-held.ts';
import { claimResponseSchema, registerResponseSchema } from './schema.ts';

export interface AgentOptions {
  client: RunnerClient;
  runnerConfig: BlitzConfig['runner'];
  /** Environment for git and workers (an allowlist of this process's, from config/). */
  baseEnv: Record<string, string>;
  /** This runner's own files no sandboxed worker may see (its token file, config, .env). */
  hidden?: readonly string[];
  repos: string[];
  roles: RunnerAdvert['roles'];
  /** Tools to advertise; default the built-in CLIs found on PATH, plus `custom`. */
  tools?: string[];
  logger: Logger;
  pollMs?: number;
  tickMs?: number;
  version?: string;
}

const BUILT_IN_TOOLS = ['claude', 'codex', 'opencode', 'gemini', 'qwen', 'aider', 'ollama'];
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class RunnerAgent {
  readonly outbox: Outbox;
  private readonly ledger: ReportingLedger;
  private readonly runner: Runner;
  private readonly held = new Map<string, Held>();
  private stopped = false;
  private timers: NodeJS.Timeout[] = [];
  /** Ends the idle wait early when a session frees up, so a full runner does not sleep a poll. */
  private wake: (() => void) | undefined;

  constructor(private readonly o: AgentOptions) {
    const dir = join(resolve(o.runnerConfig.workspace), '.runner');
    mkdirSync(dir, { recursive: true });
    this.outbox = new Outbox(o.client, join(dir, 'buffer.jsonl'), o.logger);
    this.ledger = new ReportingLedger(join(dir, 'attempts.json'), (e) => {
      void this.outbox
        .send(e)
        .catch((err: unknown) => o.logger.error({ err }, 'report could not be buffered'));
    });
    this.runner = new Runner({
      // Retries are the bot's: it enqueues an unsolved attempt's retry as a new job (any runner's).
      config: { ...o.runnerConfig, retries: 0 },
      ledger: this.ledger,
      clock: systemClock,
      events: (e) => o.logger.info({ event: e }, 'runner event'),
      logger: o.logger,
      credentials: async () => undefined,
      baseEnv: o.baseEnv,
      ...(o.hidden ? { hidden: o.hidden } : {}),
      // A worker that exits is collected and its job completed at once, so the next job is claimed
      // without waiting for the supervision tick.
      onWorkerExit: () =>
        void this.runner
          .collectExits()
          .then(() => this.settle())
          .catch((err: unknown) => o.logger.error({ err }, 'collecting a worker exit failed')),
    });
  }

  advert(): RunnerAdvert {
    const tools = this.o.tools ?? [
      ...BUILT_IN_TOOLS.filter((t) => findExecutable(t, this.o.baseEnv.PATH)),
      'custom',
    ];
    return {
      tools,
      roles: this.o.roles,
      repos: this.o.repos,
      maxSessions: this.o.runnerConfig.maxSessions,
      ...(this.o.version ? { version: this.o.version } : {}),
    };
  }

  /** Runs until stop(): registers (waiting for the bot if needed), then claims and supervises. */
  async run(): Promise<void> {
    await this.register();
    for (const h of await resumeHeldJobs({
      ledger: this.ledger,
      client: this.o.client,
      runner: this.runner,
      logger: this.o.logger,
    })) {
      this.held.set(`${h.ref.queue}|${h.ref.id}`, h);
    }
    const tickMs = this.o.tickMs ?? 1000;
    let lastStallCheck = Date.now();
    this.timers.push(
      setInterval(() => {
        const stalls = Date.now() - lastStallCheck >= this.o.runnerConfig.stallCheckSeconds * 1000;
        if (stalls) lastStallCheck = Date.now();
        void this.runner
          .tick({ stalls })
          .then(() => this.settle())
          .catch((err: unknown) => this.o.logger.error({ err }, 'supervision tick failed'));
      }, tickMs),
      setInterval(() => void this.heartbeats(), 500),
      setInterval(() => {
        if (this.outbox.pending()) void this.outbox.flush().catch(() => undefined);
      }, tickMs),
    );
    while (!this.stopped) {
      const claimed = this.held.size < this.o.runnerConfig.maxSessions ? await this.claimOne() : false;
      if (!claimed) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise<void>((done) => {
      const timer = setTimeout(done, this.o.pollMs ?? 1000);
      this.wake = () => {
        clearTimeout(timer);
        done();
      };
    });
  }

  private freed(key: string): void {
    this.held.delete(key);
    this.wake?.();
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  private async register(): Promise<void> {
    let wait = 500;
    while (!this.stopped) {
      const res = await this.o.client.post('register', this.advert());
      if (res.kind === 'delivered') {
        const r = registerResponseSchema.parse(res.body);
        this.o.logger.info({ runner: r.runner, queues: r.queues }, 'registered with the bot');
        return;
      }
      if (res.kind === 'refused') {
        throw new Error(`The bot refused this runner (HTTP ${res.status}): ${JSON.stringify(res.body)}`);
      }
      this.o.logger.warn({ reason: res.reason }, 'bot unreachable; retrying registration');
      await sleep(wait);
      wait = Math.min(wait * 2, 10_000);
    }
  }

  private async claimOne(): Promise<boolean> {
    const res = await this.o.client.post('claim', {});
    if (res.kind !== 'delivered') {
      if (res.kind === 'refused' && res.status === 409) await this.register();
      return false;
    }
    const job = claimResponseSchema.parse(res.body).job;
    if (!job) return false;
    const ref = { queue: job.queue, id: job.id };
    const parsed = runnerJobSchema.safeParse(job.payload);
    if (!parsed.success) {
      await this.outbox.send({
        path: 'fail',
        body: { job: ref, error: 'The job payload is not a runner job.' },
      });
      return true;
    }
    const held: Held = {
      ref,
      job: asClaimed(parsed.data, job.retryCount),
      heartbeatMs: heartbeatMsFor(job.leaseSeconds),
      lastBeat: Date.now(),
      settling: false,
    };
    this.held.set(`${ref.queue}|${ref.id}`, held);
    void this.execute(held);
    return true;
  }

  private async execute(h: Held): Promise<void> {
    const job = h.job;
    const before =
      job.kind === 'attempt' ? this.ledger.jobOfIssue.get(issueKey(job.runId, job.issue)) : undefined;
    if (job.kind === 'attempt') this.ledger.jobOfIssue.set(issueKey(job.runId, job.issue), h.ref);
    try {
      const result = await this.runner.execute(job);
      // An attempt runs on after execute returns; settle() completes its job when it ends.
      if (result.kind !== 'attempt') await this.finish(h, jobOutput(result));
      else await this.settle();
    } catch (err) {
      this.freed(`${h.ref.queue}|${h.ref.id}`);
      if (isOpenAttemptRefusal(err) && job.kind === 'attempt') {
        // Its issue's attempt is open here (a job delivered again): started nothing, and not a failure.
        // The issue's attempts stay reported under the job they started with.
        const key = issueKey(job.runId, job.issue);
        if (before) this.ledger.jobOfIssue.set(key, before);
        else this.ledger.jobOfIssue.delete(key);
        this.o.logger.info(
          { job: h.ref, openAttempt: err.openAttempt },
          'job refused: its issue has an open attempt',
        );
        await this.outbox.send({ path: 'refuse', body: { job: h.ref, reason: 'open_attempt' } });
        return;
      }
      const error = err instanceof Error ? err.message : String(err);
      this.o.logger.warn({ job: h.ref, error }, 'job failed on this runner');
      await this.outbox.send({ path: 'fail', body: { job: h.ref, error } });
    }
  }

  /** Completes every held attempt job whose attempts (retries included) all have an outcome. */
  private async settle(): Promise<void> {
    for (const h of [...this.held.values()]) {
      if (h.job.kind !== 'attempt' || h.settling) continue;
      const ids = this.ledger.attemptsUnder(h.ref);
      if (ids.length === 0 || (await this.ledger.openUnder(h.ref)).length > 0) continue;
      h.settling = true;
      const last = await this.ledger.get(ids.at(-1)!);
      await this.finish(h, { kind: 'attempt', attemptIds: ids, outcome: last?.outcome ?? null });
    }
  }

  private async finish(h: Held, output: unknown): Promise<void> {
    this.freed(`${h.ref.queue}|${h.ref.id}`);
    if (h.job.kind === 'attempt') this.ledger.jobOfIssue.delete(issueKey(h.job.runId, h.job.issue));
    await this.outbox.send({ path: 'complete', body: { job: h.ref, output } });
  }

  private async heartbeats(): Promise<void> {
    const now = Date.now();
    for (const h of [...this.held.values()]) {
      if (now - h.lastBeat < h.heartbeatMs) continue;
      h.lastBeat = now;
      const res = await this.o.client.post('heartbeat', { job: h.ref });
      if (res.kind !== 'refused') continue;
      // The lease went to another runner (we were away too long): stop our copy of the work.
      this.o.logger.warn({ job: h.ref, status: res.status }, 'lease lost; cancelling the local work');
      this.freed(`${h.ref.queue}|${h.ref.id}`);
      for (const r of await this.ledger.openUnder(h.ref)) {
        await this.runner.execute({ kind: 'cancel', attemptId: r.id }).catch(() => undefined);
      }
    }
  }
}
