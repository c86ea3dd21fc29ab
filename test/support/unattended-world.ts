// The world of the unattended-run fault matrix (issue 18): the whole bot in process (blitz-harness:
// a fake GitHub or Gitea over a real bare origin, the real intake, runner and orchestrator, fake
// agents that really commit) with the faults a test turns on and off while the run goes on:
//   - the agent's mode (`agent('outage')`, `agent('limit', {resetAt})`, `agent('nothing')` …, back
//     to `agent()`), read by every worker the runner starts from then on;
//   - the budget probe's answer (`probe.set(…)`: ok, park, failed, absent);
//   - forge failures (`forgeFails(401, n)`: the next n requests answer 401);
//   - the bot's clock (`clock.advance(ms)`): a backoff or a reset time is passed, never waited for.
// It records every notification the run sends (one recording notifier, every event), and says what
// a finished run left behind: worktrees in the runner's workspace, issue branches on origin.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ForgeKind } from '../../src/forges/types.ts';
import type { ProbeResult } from '../../src/runs/budget-probe.ts';
import { type Notifier, type NotifyEvent, notifyEvents, type RunNotice } from '../../src/ship/notice.ts';
import { type BlitzHarnessOptions, startBlitzHarness } from './blitz-harness.ts';
import { tempDir } from './git.ts';
import type { SeedIssue } from './world.ts';

/** Two issues, the second blocked by the first: a wave, a merge, a dependent dispatched after it. */
export const twoIssueChain: SeedIssue[] = [
  { number: 1, title: 'First', body: 'Add `src/a.ts`.' },
  { number: 2, title: 'Second', body: 'Add `src/b.ts`.', blockedBy: [1] },
];

export type AgentFault =
  | 'outage'
  | 'limit'
  | 'nothing'
  | 'stall'
  | 'fail'
  | 'crash'
  | 'slow-push'
  | 'disk-heavy';

export type ProbeSetting = ProbeResult | 'throws';

export const probeOk = (sessions = 2): ProbeResult => ({
  status: 'ok',
  recommendedMaxSessions: sessions,
  preferMedium: false,
  park: false,
});
export const probePark: Extract<ProbeResult, { status: 'ok' }> = {
  status: 'ok',
  recommendedMaxSessions: 0,
  preferMedium: false,
  park: true,
};
export const probeFailed: ProbeResult = { status: 'failed', error: 'the probe exited with 1' };
export const probeAbsent: ProbeResult = { status: 'absent' };

export interface UnattendedWorldOptions
  extends Omit<BlitzHarnessOptions, 'issues' | 'notifiers' | 'budgetProbe' | 'clock'> {
  forge: ForgeKind;
  /** Default `twoIssueChain`. */
  issues?: SeedIssue[];
  /** The probe's first answer; default none configured (`absent`). */
  probe?: ProbeSetting;
  /** No notify target at all (the recorder is left out): the bot tells people on the forge. */
  noNotifyTargets?: boolean;
}

/** A clock that runs with real time, plus whatever the test moved it by. */
export const movableClock = () => {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    /** Moves the bot's time forward (a backoff, a reset time passes at once). */
    advance(ms: number) {
      offsetMs += ms;
    },
  };
};

/** A notifier that takes every event and keeps what it was sent. */
export const recordingNotifier = () => {
  const sent: RunNotice[] = [];
  const notifier: Notifier = {
    target: 'recorder',
    events: new Set(notifyEvents),
    async notify(notice) {
      sent.push(notice);
      return { ok: true, target: 'recorder', attempts: 1 };
    },
  };
  return { notifier, sent };
};

export const startUnattendedWorld = async (opts: UnattendedWorldOptions) => {
  const clock = movableClock();
  const recorder = recordingNotifier();
  const dir = tempDir('unattended-');
  const modeFile = join(dir, 'agent-mode');
  writeFileSync(modeFile, '');
  let probe: ProbeSetting = opts.probe ?? probeAbsent;
  const probeCalls: string[] = [];
  const h = await startBlitzHarness({
    ...opts,
    issues: opts.issues ?? twoIssueChain,
    agentEnv: { ...(opts.agentEnv ?? {}), FAKE_AGENT_MODE_FILE: modeFile },
    notifiers: opts.noNotifyTargets ? [] : [recorder.notifier],
    clock,
    budgetProbe: async () => {
      probeCalls.push(typeof probe === 'string' ? probe : probe.status);
      if (probe === 'throws') throw new Error('budget probe crashed');
      return probe;
    },
  });

  const noticesOf = (event: NotifyEvent): RunNotice[] => recorder.sent.filter((n) => n.event === event);

  /** Origin's branches that are issue branches (`<slug>/<n>-…`), not the default or integration branch. */
  const issueBranchesOnOrigin = async (): Promise<string[]> =>
    [...(await h.repo.git.branches()).keys()].filter(
      (b) => /^[^/]+\/\d+-/.test(b) && !b.startsWith('blitz/'),
    );

  /** Attempt repositories the runner left in its workspace (`.worktrees/<owner>/<repo>/*`). */
  const worktreesLeft = (): string[] => {
    const out: string[] = [];
    const root = join(h.workspace, '.worktrees');
    if (!existsSync(root)) return out;
    for (const owner of readdirSync(root, { withFileTypes: true })) {
      if (!owner.isDirectory()) continue;
      for (const name of readdirSync(join(root, owner.name), { withFileTypes: true })) {
        if (!name.isDirectory()) continue;
        const dir = join(root, owner.name, name.name);
        for (const repo of readdirSync(dir, { withFileTypes: true }))
          if (repo.isDirectory() && !repo.name.startsWith('.')) out.push(join(dir, repo.name));
      }
    }
    return out;
  };

  return {
    h,
    world: h.world,
    repo: h.repo,
    clock,
    /** Every notification the run sent, in order. */
    notices: recorder.sent,
    noticesOf,
    /** The notifications that ask a person for something: all but `started` and `shipped`. */
    alerts: () => recorder.sent.filter((n) => n.event !== 'started' && n.event !== 'shipped'),
    /** The run's dashboard comment on the control-room issue, as it reads now. */
    dashboard: () =>
      h.world.commentsOn(h.repo, h.trigger).find((c) => c.body.includes('blitz-dashboard'))?.body ?? '',
    /** The probe's answers so far, by status (`ok`, `failed`, `absent`, `throws`). */
    probeCalls,
    probe: {
      set(next: ProbeSetting) {
        probe = next;
      },
    },
    /**
     * The mode of every worker started from now on (a resume too); none: the fake agent's own
     * (`push`). `limit` prints claude's spend-limit line with `resetAt` as its reset time.
     */
    agent(mode?: AgentFault | 'push', o: { resetAt?: Date } = {}) {
      const reset = o.resetAt ? `${Math.floor(o.resetAt.getTime() / 1000)}\n` : '';
      writeFileSync(modeFile, mode ? `${mode}\n${reset}` : '');
    },
    /** The next `times` forge requests (matching `match`, a `METHOD /path` regexp) answer `status`. */
    forgeFails(status: number, times: number, match?: RegExp) {
      if (h.fakeGithub) h.fakeGithub.failNext(times, { status, ...(match ? { match } : {}) });
      else h.fakeGitea!.failNext({ status, times, ...(match ? { match } : {}) });
    },
    /** The forge answers again: the failures still queued are dropped. */
    forgeHeals() {
      h.fakeGithub?.clearFailures();
      h.fakeGitea?.clearFailures();
    },
    /** `/blitz M1` by alice (write permission) on the control-room issue. */
    start: () => h.comment('/blitz M1', 'alice'),
    /** A command typed by `login` (default alice) on the control-room issue. */
    command: (text: string, login = 'alice') => h.comment(text, login),
    /** The issue closed by a person on the tracker (no bot involved). */
    closeByHand(n: number) {
      const issue = h.world.issue(h.repo, n);
      if (!issue) throw new Error(`no issue #${n}`);
      h.world.setIssueState(h.repo, issue, 'closed', 'alice');
    },
    /** The replies on the control-room issue that are not the dashboard, newest last. */
    replies: () =>
      h.world
        .commentsOn(h.repo, h.trigger)
        .filter((c) => c.author === h.world.botLogin && !c.body.includes('blitz-dashboard'))
        .map((c) => c.body),
    run: () => h.liveRun(),
    round: () => h.round(),
    drive: (done: () => Promise<boolean> | boolean, timeoutMs?: number) => h.drive(done, timeoutMs),
    /** Rounds until the run is in `state`. */
    driveToState: (state: string, timeoutMs?: number) =>
      h.drive(async () => (await h.liveRun())?.state === state, timeoutMs),
    /** How many times the tracker saw issue `n` closed. */
    closes: (n: number) => h.world.count('close', 'acme/app', n),
    issueBranchesOnOrigin,
    worktreesLeft,
    async close() {
      await h.close();
    },
  };
};

export type UnattendedWorld = Awaited<ReturnType<typeof startUnattendedWorld>>;

/**
 * The milestone finished: the run done, every issue closed exactly once, and nothing of the merged
 * ones left behind (their worktrees, their branches on origin). Given `alerts`, the fault was told that
 * many times (`alerts()`: the notifications that ask a person for something).
 */
export const expectMilestoneFinished = async (
  x: UnattendedWorld,
  issues: readonly number[] = [1, 2],
  merged: readonly number[] = issues,
  o: { alerts?: number; timeoutMs?: number } = {},
): Promise<void> => {
  await x.driveToState('done', o.timeoutMs ?? 60_000);
  if (o.alerts !== undefined)
    expect(
      x.alerts().map((n) => `${n.event}: ${n.sentence}`),
      'one notification',
    ).toHaveLength(o.alerts);
  for (const n of issues) expect(x.closes(n), `#${n} closed once`).toBe(1);
  const mine = (n: number) => (s: string) => new RegExp(`[/-]${n}-[a-z]`).test(s);
  for (const n of merged) {
    expect(x.worktreesLeft().filter(mine(n)), `#${n}'s worktree removed`).toEqual([]);
    expect((await x.issueBranchesOnOrigin()).filter(mine(n)), `#${n}'s branch deleted`).toEqual([]);
  }
};
