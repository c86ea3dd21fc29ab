// Rows the store suite (store-suite.ts) and the store bench build: a run, an intent, an attempt.
import type { AttemptRecord } from '../../src/runner/types.ts';
import type { NewIntent } from '../../src/store/types.ts';

export const repo = { owner: 'o', name: 'r' };
export const attempt = (id: string, over: Partial<AttemptRecord> = {}): AttemptRecord =>
  ({
    id,
    runId: 'run-1',
    issue: { repo, number: 1 },
    rosterEntry: 'fake',
    tool: 'custom',
    tier: 'execution',
    branch: 'b',
    baseBranch: 'main',
    repoDir: '/w/o/r',
    worktree: '/w/.worktrees/o/r/b',
    logPath: '/w/l',
    promptPath: '/w/p',
    exitPath: '/w/e',
    launchedAt: '2026-01-01T00:00:00Z',
    argvRedacted: [],
    originShaAtStart: null,
    startedAt: '2026-01-01T00:00:00Z',
    nudges: 0,
    tokens: { input: 10, output: 1 },
    job: {} as AttemptRecord['job'],
    ...over,
  }) as AttemptRecord;

export const newRun = (id: string, milestoneNumber = 1) => ({
  id,
  forge: 'github' as const,
  repo: 'acme/app',
  kind: 'blitz' as const,
  milestoneNumber,
  milestoneTitle: 'M1',
  slug: 'm1',
  options: { maxSessions: 2 },
  state: 'planning' as const,
  integrationBranch: 'blitz/m1',
});

export const intentFor = (deliveryId: string, seq = 0): NewIntent => ({
  forge: 'github',
  repo: 'acme/app',
  issueNumber: 1,
  command: { name: 'blitz', dryRun: false },
  sender: 'alice',
  deliveryId,
  seq,
});
