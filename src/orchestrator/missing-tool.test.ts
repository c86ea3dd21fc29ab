import { describe, expect, it } from 'vitest';
import { rosterEntrySchema } from '../config/blitz-config.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { missingToolOf } from './missing-tool.ts';

const entry = rosterEntrySchema.parse({
  name: 'sonnet',
  tool: 'custom',
  command: ['/opt/agents/claude', '{prompt_file}'],
  resume: ['/opt/agents/claude', '--resume', '{prompt_file}'],
  roles: ['blitz'],
  tiers: ['execution'],
});
const attempt = (id: string, n: number, over: Partial<AttemptRecord> = {}): AttemptRecord =>
  ({
    id,
    runId: 'r',
    issue: { repo: { owner: 'acme', name: 'app' }, number: n },
    rosterEntry: 'sonnet',
    tool: 'custom',
    tier: 'execution',
    branch: `m1/${n}-x`,
    baseBranch: 'blitz/m1',
    worktree: '',
    promptPath: '/w/.attempts/x/prompt.md',
    startedAt: '2026-12-01T10:00:00.000Z',
    tokens: { input: 0, output: 0 },
    job: { retry: 0, entry },
    ...over,
  }) as AttemptRecord;
const miss = (id: string, n: number, over: Partial<AttemptRecord> = {}) =>
  attempt(id, n, {
    outcome: 'environment_failure',
    failureSummary: 'Roster entry sonnet: command "/opt/agents/claude" was not found on this host.',
    endedAt: '2026-12-01T10:00:01.000Z',
    ...over,
  });
const deps = (now: string) => ({
  clock: { now: () => new Date(now) },
  config: { runner: { environmentBackoff: { initialSeconds: 60, maxSeconds: 600 } } },
});
const at = (now: string, attempts: AttemptRecord[]) =>
  missingToolOf(deps(now) as Parameters<typeof missingToolOf>[0], attempts);

describe('missingToolOf', () => {
  it('names the tool from the bot’s own job and the remote runner the hub named, counting the misses in a row', () => {
    const got = at('2026-12-01T10:05:00.000Z', [
      miss('a', 1, { runner: 'gpu-1', failureSummary: 'Agent binary missing or not runnable (ENOENT).' }),
      miss('b', 1, { runner: 'gpu-1', endedAt: '2026-12-01T10:03:00.000Z' }),
    ]);
    expect(got).toMatchObject({
      reason: 'the agent CLI `/opt/agents/claude` (roster entry sonnet) is not installed on runner gpu-1',
      issue: 'acme/app#1',
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
    const outage = miss('a', 1, { failureSummary: 'Environment failure: model endpoint unreachable.' });
    const worker = miss('b', 2, { failureSummary: 'Environment failure: agent binary missing.' });
    expect(at('2026-12-01T10:05:00.000Z', [outage, worker])).toBeUndefined();
  });
});
