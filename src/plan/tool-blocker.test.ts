import { describe, expect, it } from 'vitest';
import { baseSnapshot, issue, k, progressOf } from '../../test/support/plan-arbitraries.ts';
import { repo, attempt as storedAttempt } from '../../test/support/store-suite-fixtures.ts';
import { rosterEntrySchema } from '../config/blitz-config.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { blockReasonOf } from './block-cause.ts';
import { nextActions } from './next-actions.ts';
import type { MissingToolView } from './snapshot.ts';
import { missingToolViewOf } from './tool-blocker.ts';

const reason = 'the agent CLI `claude` (roster entry sonnet) is not installed on host build-1';
const cause = { kind: 'missing_tool', tool: 'claude', entry: 'sonnet', host: { host: 'build-1' } } as const;
const missing = (o: Partial<MissingToolView> = {}): MissingToolView => ({
  cause,
  issue: k(1),
  failures: 1,
  lastAt: '2026-12-01T10:00:00.000Z',
  probing: false,
  now: '2026-12-01T10:00:30.000Z',
  policy: { initialSeconds: 60, maxSeconds: 600 },
  ...o,
});
const failed = [
  progressOf(k(1), { state: 'failed', attempts: [] }),
  progressOf(k(2), { state: 'failed', attempts: [] }),
];
const snap = (o: { missingTool?: MissingToolView; kept?: boolean } = {}) =>
  baseSnapshot([issue(1), issue(2)], {
    progress: failed,
    ...(o.missingTool ? { missingTool: o.missingTool } : {}),
    ...(o.kept ? { keptBlocker: { reason, cause, issue: 9 } } : {}),
  });

describe('a missing agent CLI', () => {
  it('blocks the run on it first, naming the tool and the host, and dispatches nothing', () => {
    expect(nextActions('running', snap({ missingTool: missing() }))).toEqual([
      { type: 'block', reason, cause },
    ]);
  });

  it('waits out the backoff while blocked, then probes with one attempt of the issue that met it', () => {
    expect(nextActions('blocked', snap({ missingTool: missing(), kept: true }))).toEqual([]);
    const due = nextActions(
      'blocked',
      snap({ missingTool: missing({ now: '2026-12-01T10:01:00.000Z' }), kept: true }),
    );
    expect(due).toHaveLength(1);
    expect(due[0]).toMatchObject({ type: 'dispatch', issue: k(1) });
    // The wait doubles with each probe that met the tool missing again.
    const second = missing({ failures: 2, now: '2026-12-01T10:01:30.000Z' });
    expect(nextActions('blocked', snap({ missingTool: second, kept: true }))).toEqual([]);
  });

  it('waits while a probe attempt is under way, and probes at once when a person resumed the run', () => {
    expect(nextActions('blocked', snap({ missingTool: missing({ probing: true }), kept: true }))).toEqual([]);
    const resumed = nextActions('running', snap({ missingTool: missing(), kept: true }));
    expect(resumed.map((a) => a.type)).toEqual(['block', 'dispatch']);
    expect(nextActions('paused', snap({ missingTool: missing(), kept: true }))).not.toContainEqual(
      expect.objectContaining({ type: 'block' }),
    );
  });

  it('a blocker kept in the same words for another host is not this one: the run blocks on the new one', () => {
    // Tried: the kept blocker's sentence equal to the one met now, its cause naming runner build-1
    // instead of host build-1. Matching on the words would have waited on the old blocker.
    const elsewhere = { ...cause, host: { runner: 'build-1' } } as const;
    const got = nextActions(
      'blocked',
      baseSnapshot([issue(1), issue(2)], {
        progress: failed,
        missingTool: missing(),
        keptBlocker: { reason, cause: elsewhere, issue: 9 },
      }),
    );
    expect(got).toEqual([{ type: 'block', reason, cause }]);
  });

  it('once the tool is found the kept blocker is lifted and the run goes on', () => {
    const got = nextActions('blocked', snap({ kept: true }));
    expect(got[0]).toEqual({ type: 'unblock', reason, cause, issue: 9 });
    expect(
      got.filter((a) => a.type === 'dispatch').map((a) => (a.type === 'dispatch' ? a.issue : '')),
    ).toEqual([k(1), k(2)]);
  });
});

const entry = rosterEntrySchema.parse({
  name: 'sonnet',
  tool: 'custom',
  command: ['/opt/agents/claude', '{prompt_file}'],
  resume: ['/opt/agents/claude', '--resume', '{prompt_file}'],
  roles: ['blitz'],
  tiers: ['execution'],
});
const attempt = (id: string, n: number, over: Partial<AttemptRecord> = {}): AttemptRecord =>
  storedAttempt(id, {
    issue: { repo, number: n },
    rosterEntry: 'sonnet',
    startedAt: '2026-12-01T10:00:00.000Z',
    job: { retry: 0, entry } as AttemptRecord['job'],
    ...over,
  });
const miss = (id: string, n: number, over: Partial<AttemptRecord> = {}) =>
  attempt(id, n, {
    outcome: 'environment_failure',
    failureSummary: 'Roster entry sonnet: command "/opt/agents/claude" was not found on this host.',
    failureCause: { kind: 'missing_tool' },
    endedAt: '2026-12-01T10:00:01.000Z',
    ...over,
  });
const at = (now: string, attempts: AttemptRecord[]) =>
  missingToolViewOf({ now, policy: { initialSeconds: 60, maxSeconds: 600 } }, attempts);

describe('the missing agent CLI as the planner sees it (missingToolViewOf)', () => {
  it('names the tool from the bot’s own job and the remote runner the hub named, counting the misses in a row', () => {
    const got = at('2026-12-01T10:05:00.000Z', [
      miss('a', 1, { runner: 'gpu-1', failureSummary: 'Agent binary missing or not runnable (ENOENT).' }),
      miss('b', 1, { runner: 'gpu-1', endedAt: '2026-12-01T10:03:00.000Z' }),
    ]);
    expect(blockReasonOf(got!.cause)).toBe(
      'the agent CLI `/opt/agents/claude` (roster entry sonnet) is not installed on runner gpu-1',
    );
    expect(got).toMatchObject({
      cause: { kind: 'missing_tool', tool: '/opt/agents/claude', entry: 'sonnet', host: { runner: 'gpu-1' } },
      issue: 'o/r#1',
      failures: 2,
      lastAt: '2026-12-01T10:03:00.000Z',
      probing: false,
    });
  });

  it('keeps it while a probe attempt is within its first wait, and lets go once it ran past it or ended otherwise', () => {
    const probe = attempt('b', 1, { startedAt: '2026-12-01T10:02:00.000Z' });
    expect(at('2026-12-01T10:02:30.000Z', [miss('a', 1), probe])).toMatchObject({
      probing: true,
      failures: 1,
    });
    expect(at('2026-12-01T10:03:01.000Z', [miss('a', 1), probe])).toBeUndefined();
    expect(at('2026-12-01T10:02:30.000Z', [miss('a', 1), { ...probe, outcome: 'unsolved' }])).toBeUndefined();
  });

  it('is nothing for other environment failures or a worker that printed "command not found"', () => {
    const outage = miss('a', 1, {
      failureSummary: 'Environment failure: model endpoint unreachable.',
      failureCause: { kind: 'environment', cause: 'endpoint_unreachable' },
    });
    const worker = miss('b', 2, {
      failureSummary: 'Environment failure: agent binary missing.',
      failureCause: { kind: 'environment', cause: 'tool_missing' },
    });
    expect(at('2026-12-01T10:05:00.000Z', [outage, worker])).toBeUndefined();
  });

  it('matches on the typed cause, never on the summary’s words', () => {
    // The runner's own sentence without a cause (a row from before causes were typed): no blocker.
    const worded = miss('a', 1, { failureCause: undefined });
    expect(at('2026-12-01T10:05:00.000Z', [worded])).toBeUndefined();
    // Any words, the cause typed: blocked.
    const typed = miss('b', 2, { failureSummary: 'The CLI is not there.' });
    expect(at('2026-12-01T10:05:00.000Z', [worded, typed])).toMatchObject({
      cause: { kind: 'missing_tool', tool: '/opt/agents/claude' },
      issue: 'o/r#2',
      failures: 1,
    });
  });
});
