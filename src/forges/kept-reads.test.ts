import { describe, expect, it } from 'vitest';
import { withIssueClosed, withKeptReads } from './kept-reads.ts';
import type { Forge, MilestoneIssue, MilestoneSnapshot, RepoRef } from './types.ts';

const app: RepoRef = { owner: 'acme', name: 'app' };
const lib: RepoRef = { owner: 'acme', name: 'lib' };

const issue = (number: number, blockedBy: number[] = [], repo = app): MilestoneIssue => ({
  ref: { repo, number },
  title: `issue ${number}`,
  body: '',
  state: 'open',
  labels: [],
  assignees: [],
  author: 'alice',
  createdAt: '2026-01-01T00:00:00Z',
  locked: false,
  isPullRequest: false,
  blockedBy: blockedBy.map((n) => ({ repo, number: n })),
  children: [],
});

const snapshot = (issues: MilestoneIssue[]): MilestoneSnapshot => ({
  milestone: {
    number: 1,
    title: 'M1',
    description: '',
    state: 'open',
    openIssues: issues.length,
    closedIssues: 0,
  },
  issues,
  externalBlockers: [],
});

/** A forge whose milestone loads and file reads are counted; writes do nothing. */
const counting = (snap: () => MilestoneSnapshot) => {
  const calls = { loads: 0, files: 0 };
  const forge = {
    kind: 'github',
    botLogin: 'bot',
    loadMilestone: async () => {
      calls.loads += 1;
      return snap();
    },
    getFile: async () => {
      calls.files += 1;
      return 'merge: squash';
    },
    closeIssue: async () => {},
    reopenIssue: async () => {},
    createIssue: async () => {
      throw new Error('not used');
    },
    addBlockedBy: async () => {},
    addLabels: async () => {},
    removeLabel: async () => {},
  } as unknown as Forge;
  return { forge, calls };
};

const clock = () => {
  let t = 0;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
};

describe('kept reads', () => {
  it('serves the milestone again without a load while fresh, and loads once it is older', async () => {
    const { forge, calls } = counting(() => snapshot([issue(1), issue(2, [1])]));
    const time = clock();
    const kept = withKeptReads(forge, { freshMs: 60_000, now: time.now });
    const first = await kept.loadMilestone(app, 1);
    first.issues.pop(); // a caller's change does not reach the kept copy
    expect((await kept.loadMilestone(app, 1)).issues).toHaveLength(2);
    expect(calls.loads).toBe(1);
    time.advance(60_000);
    await kept.loadMilestone(app, 1);
    expect(calls.loads).toBe(2);
  });

  it("applies the bot's own close: the issue leaves, its dependents see the blocker closed", async () => {
    const { forge, calls } = counting(() => snapshot([issue(1), issue(2, [1])]));
    const kept = withKeptReads(forge, { now: () => 0 });
    await kept.loadMilestone(app, 1);
    await kept.closeIssue({ repo: app, number: 1 });
    const snap = await kept.loadMilestone(app, 1);
    expect(calls.loads).toBe(1);
    expect(snap.issues.map((i) => i.ref.number)).toEqual([2]);
    expect(snap.externalBlockers).toEqual([
      { ref: { repo: app, number: 1 }, state: 'closed', title: 'issue 1' },
    ]);
    expect(snap.milestone).toMatchObject({ openIssues: 1, closedIssues: 1 });
  });

  it('a close the forge refused is not applied: the next load reads the issue, still open, from the forge', async () => {
    const { forge, calls } = counting(() => snapshot([issue(1), issue(2, [1])]));
    forge.closeIssue = async () => {
      throw new Error('403 Resource not accessible by integration');
    };
    const kept = withKeptReads(forge, { now: () => 0 });
    await kept.loadMilestone(app, 1);
    await expect(kept.closeIssue({ repo: app, number: 1 })).rejects.toThrow(/403/);
    const snap = await kept.loadMilestone(app, 1);
    expect(calls.loads).toBe(2);
    expect(snap.issues.map((i) => i.ref.number)).toEqual([1, 2]);
    expect(snap.externalBlockers).toEqual([]);
  });

  it('applies an issue-closed webhook the same way, without a reload', async () => {
    const { forge, calls } = counting(() => snapshot([issue(1), issue(2, [1])]));
    const kept = withKeptReads(forge, { now: () => 0 });
    await kept.loadMilestone(app, 1);
    kept.observeEvent?.({ kind: 'issue-closed', repo: app, issueNumber: 1 });
    expect((await kept.loadMilestone(app, 1)).issues.map((i) => i.ref.number)).toEqual([2]);
    expect(calls.loads).toBe(1);
  });

  it('drops what a webhook or write about the repository may have changed; comments and checks change nothing', async () => {
    const { forge, calls } = counting(() => snapshot([issue(1)]));
    const kept = withKeptReads(forge, { now: () => 0 });
    await kept.loadMilestone(app, 1);
    for (const kind of ['command', 'checks-changed', 'review-changed', 'pr-opened', 'pr-merged'])
      kept.observeEvent?.({ kind, repo: app });
    await kept.loadMilestone(app, 1);
    expect(calls.loads).toBe(1);
    kept.observeEvent?.({ kind: 'label-added', repo: app, issueNumber: 1 });
    await kept.loadMilestone(app, 1);
    expect(calls.loads).toBe(2);
    await kept.addLabels({ repo: app, number: 1 }, ['x']);
    await kept.loadMilestone(app, 1);
    expect(calls.loads).toBe(3);
    kept.observeEvent?.({ kind: 'issue-reopened', repo: app, issueNumber: 7 });
    await kept.loadMilestone(app, 1);
    expect(calls.loads).toBe(4);
  });

  it('an event in another repository drops a snapshot only when the snapshot names that repository', async () => {
    const withLib = snapshot([{ ...issue(1), blockedBy: [{ repo: lib, number: 9 }] }]);
    withLib.externalBlockers = [{ ref: { repo: lib, number: 9 }, state: 'open' }];
    const { forge, calls } = counting(() => withLib);
    const kept = withKeptReads(forge, { now: () => 0 });
    await kept.loadMilestone(app, 1);
    kept.observeEvent?.({ kind: 'dependency-changed', repo: { owner: 'acme', name: 'other' } });
    await kept.loadMilestone(app, 1);
    expect(calls.loads).toBe(1);
    kept.observeEvent?.({ kind: 'issue-reopened', repo: lib, issueNumber: 9 });
    await kept.loadMilestone(app, 1);
    expect(calls.loads).toBe(2);
  });

  it('does not keep a load that an invalidation overtook', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let n = 0;
    const { forge, calls } = counting(() => snapshot([issue(++n)]));
    const slow = {
      ...forge,
      loadMilestone: async (repo: RepoRef, number: number) => {
        const s = await forge.loadMilestone(repo, number);
        await gate;
        return s;
      },
    };
    const kept = withKeptReads(slow, { now: () => 0 });
    const loading = kept.loadMilestone(app, 1);
    kept.observeEvent?.({ kind: 'label-added', repo: app, issueNumber: 1 });
    release();
    await loading;
    await kept.loadMilestone(app, 1);
    expect(calls.loads).toBe(2);
  });

  it('keeps a file for the fresh period; a failed read is not kept', async () => {
    const { forge, calls } = counting(() => snapshot([]));
    const time = clock();
    let fail = true;
    const flaky = {
      ...forge,
      getFile: async (repo: RepoRef, path: string, ref?: string) => {
        const text = await forge.getFile(repo, path, ref);
        if (fail) throw new Error('forge down');
        return text;
      },
    };
    const kept = withKeptReads(flaky, { freshMs: 60_000, now: time.now });
    await expect(kept.getFile(app, '.github/blitz.yml', 'main')).rejects.toThrow('forge down');
    fail = false;
    await kept.getFile(app, '.github/blitz.yml', 'main');
    await kept.getFile(app, '.github/blitz.yml', 'main');
    expect(calls.files).toBe(2);
    time.advance(60_000);
    await kept.getFile(app, '.github/blitz.yml', 'main');
    expect(calls.files).toBe(3);
  });

  it('withIssueClosed leaves an issue nobody names out of the blockers', () => {
    const snap = withIssueClosed(snapshot([issue(1), issue(2)]), { repo: app, number: 1 });
    expect(snap.issues.map((i) => i.ref.number)).toEqual([2]);
    expect(snap.externalBlockers).toEqual([]);
  });
});
