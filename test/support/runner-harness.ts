// Shared set-up for the runner's integration tests: a Runner over a temp workspace with an
// in-memory (or file) ledger, a controllable clock, recorded events, and fake-agent roster entries.

import { chmodSync } from 'node:fs';
import { resolve } from 'node:path';
import { type RosterEntry, rosterEntrySchema } from '../../src/config/blitz-config.ts';
import type { EnvValue } from '../../src/config/worker-env.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import type { GitCredentials } from '../../src/runner/git.ts';
import { InMemoryAttemptLedger } from '../../src/runner/ledger.ts';
import { Runner } from '../../src/runner/runner.ts';
import type { AttemptLedger, AttemptRecord, RunnerEvent, RunnerJob } from '../../src/runner/types.ts';
import { tempDir, testEnv } from './git.ts';
import { runnerProgress } from './runner-progress.ts';
import { roundsUntil } from './until.ts';

export const fakeAgent = resolve('test/support/fake-agents/fake-agent.mjs');
/** Fake `claude` and `aider` executables, for the built-in adapters. */
export const fakeBin = resolve('test/support/fake-agents/bin');

export const fakeEntry = (env: Record<string, EnvValue> = {}, name = 'fake'): RosterEntry =>
  rosterEntrySchema.parse({
    name,
    tool: 'custom',
    command: ['node', fakeAgent, '{prompt_file}'],
    resume: ['node', fakeAgent, '--resume', '{prompt_file}'],
    roles: ['blitz', 'fleet'],
    tiers: ['execution'],
    env,
  });

export class TestClock {
  constructor(public t = Date.parse('2026-01-01T00:00:00Z')) {}
  now = (): Date => new Date(this.t);
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface Harness {
  runner: Runner;
  ledger: AttemptLedger;
  clock: TestClock;
  events: RunnerEvent[];
  workspace: string;
}

export const makeHarness = (
  opts: {
    workspace?: string;
    ledger?: AttemptLedger;
    credentials?: GitCredentials;
    /** Called whenever the runner asks for credentials. */
    onCredentials?: () => void;
    /** Directories put in front of PATH (fake CLIs named like the real ones). */
    pathPrepend?: string[];
    /** The environment the runner starts git and workers from (default testEnv()). */
    baseEnv?: Record<string, string>;
    /** The runner's own environment, where roster `fromEnv` names are read (default process.env). */
    hostEnv?: NodeJS.ProcessEnv;
    runner?: Partial<{
      maxNudges: number;
      retries: number;
      attemptTimeoutMinutes: number;
      user: string;
      group: string;
      sandbox: 'bubblewrap' | 'none';
      network: 'full' | 'model-only';
    }>;
    /** Mode of the temp workspace (private by default; another worker user needs to reach it). */
    chmodWorkspace?: number;
    botUid?: number;
    /** The bot's /proc/self/status text (its capabilities); default this process's. */
    procStatus?: string;
    /** Where an unsolved attempt's retry goes (the bot's queue); default: started here. */
    requeue?: (r: AttemptRecord) => Promise<unknown>;
    /** Paths no sandboxed worker or gate may see (the bot's files). */
    hidden?: string[];
    /** Told too when a worker exits (the harness always tells runnerProgress). */
    onWorkerExit?: (attemptId: string) => void;
  } = {},
): Harness => {
  const workspace = opts.workspace ?? tempDir('blitz-ws-');
  if (opts.chmodWorkspace !== undefined) chmodSync(workspace, opts.chmodWorkspace);
  const ledger = opts.ledger ?? new InMemoryAttemptLedger();
  const clock = new TestClock();
  const events: RunnerEvent[] = [];
  const runner = new Runner({
    config: {
      workspace,
      maxSessions: 2,
      stallCheckSeconds: 90,
      minFreeDiskMb: 0,
      attemptTimeoutMinutes: 60,
      buildConcurrency: 1,
      maxNudges: 6,
      retries: 0,
      // The fake agent reads and writes files the test names outside its worktree (traces, mode files):
      // tests of the sandbox itself ask for bubblewrap.
      sandbox: 'none',
      ...opts.runner,
    },
    ledger,
    clock,
    events: (e) => events.push(e),
    logger: silentLogger(),
    credentials: async () => {
      opts.onCredentials?.();
      return opts.credentials;
    },
    baseEnv: {
      ...(opts.baseEnv ?? testEnv()),
      PATH: [...(opts.pathPrepend ?? []), testEnv().PATH].join(':'),
    },
    ...(opts.hostEnv ? { hostEnv: opts.hostEnv } : {}),
    ...(opts.botUid !== undefined ? { botUid: opts.botUid } : {}),
    ...(opts.procStatus !== undefined ? { procStatus: opts.procStatus } : {}),
    ...(opts.requeue ? { requeue: opts.requeue } : {}),
    ...(opts.hidden ? { hidden: opts.hidden } : {}),
    // Told, not acted on: the tests tick the runner themselves (settle waits on this).
    onWorkerExit: (id) => {
      opts.onWorkerExit?.(id);
      runnerProgress.notify();
    },
  });
  return { runner, ledger, clock, events, workspace };
};

export const attemptJob = (
  cloneUrl: string,
  entry: RosterEntry,
  over: Partial<Extract<RunnerJob, { kind: 'attempt' }>> = {},
): RunnerJob => ({
  kind: 'attempt',
  runId: 'run-1',
  issue: { repo: { owner: 'acme', name: 'app' }, number: 7 },
  title: 'Add a health route',
  body: 'GET /health returns 200.',
  branchStyle: 'blitz',
  runSlug: 'm1',
  baseBranch: 'main',
  cloneUrl,
  entry,
  tier: 'execution',
  ...over,
});

/**
 * Ticks the runner until the attempt has an outcome, each time after a worker of this process exited
 * (its retry, a nudged resume, may start another). A worker started by another process and
 * re-attached here sends no exit: for it the wait is bounded at a second and the runner looks again.
 */
export const settle = (h: Harness, id: string, timeoutMs = 20_000): Promise<AttemptRecord> =>
  roundsUntil(
    `attempt ${id} settled`,
    // Exits only: a thinking worker is not taken for a stalled one between exits.
    () => h.runner.tick({ stalls: false }),
    async () => {
      const r = await h.ledger.get(id);
      return r?.outcome ? r : undefined;
    },
    { timeoutMs },
  );
