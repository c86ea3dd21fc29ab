import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { parseBodyDeps } from './body-deps.ts';
import { mergeBodyDeps } from './body-deps-merge.ts';
import type { MilestoneIssue, MilestoneSnapshot } from './types.ts';

const home = { owner: 'acme', name: 'app' };
const nums = (body: string) =>
  parseBodyDeps(body, home).map((r) => `${r.repo.owner}/${r.repo.name}#${r.number}`);

describe('parseBodyDeps', () => {
  it('reads "Blocked by", "Depends on" and "blocked-by:" lists, in this repo and others', () => {
    expect(nums('Blocked by #12\nDepends on other/lib#3\nblocked-by: #4, #5 and #6.')).toEqual([
      'acme/app#12',
      'other/lib#3',
      'acme/app#4',
      'acme/app#5',
      'acme/app#6',
    ]);
  });

  it('reads a declaration in a list item or bold, and names each blocker once', () => {
    expect(nums('- **Depends on** #7\n* [ ] blocked by #7\nDEPENDS-ON: #8')).toEqual([
      'acme/app#7',
      'acme/app#8',
    ]);
  });

  it('ignores declarations inside fenced code, quotes and inline code', () => {
    const body = [
      '```',
      'Blocked by #1',
      '```',
      '~~~md',
      'depends on #2',
      '~~~',
      '> Blocked by #3',
      'Blocked by `#4`',
    ].join('\n');
    expect(nums(body)).toEqual([]);
  });

  it('ignores the words in the middle of a sentence and stops at the first word that is not a ref', () => {
    expect(nums('This was blocked by #3 once.\nBlocked by #9 until the release of #10')).toEqual([
      'acme/app#9',
    ]);
  });

  it('ignores #0 and task-list refs without a keyword', () => {
    expect(nums('- [ ] #4\n- [ ] #5\nBlocked by #0')).toEqual([]);
  });
});

const issue = (number: number, body: string, blockedBy: number[] = []): MilestoneIssue => ({
  ref: { repo: home, number },
  title: `issue ${number}`,
  body,
  state: 'open',
  labels: [],
  assignees: [],
  author: 'alice',
  createdAt: '2026-01-01T00:00:00Z',
  locked: false,
  isPullRequest: false,
  blockedBy: blockedBy.map((n) => ({ repo: home, number: n })),
  children: [],
});

const snap = (issues: MilestoneIssue[]): MilestoneSnapshot => ({
  milestone: { number: 1, title: 'M1', description: '', state: 'open', openIssues: 2, closedIssues: 0 },
  issues,
  externalBlockers: [],
});

describe('mergeBodyDeps', () => {
  it('adds declared blockers to blockedBy and states a missing one unknown (fail closed)', async () => {
    const read = async (r: { number: number }) => {
      if (r.number === 99) throw new AppError('not_found', 'no such issue');
      return { state: 'closed' as const, title: 'done thing' };
    };
    const out = await mergeBodyDeps(snap([issue(1, 'x'), issue(2, 'Blocked by #1, #99, #50', [1])]), read);
    expect(out.issues[1]!.blockedBy.map((r) => r.number)).toEqual([1, 99, 50]);
    expect(out.externalBlockers.map((b) => [b.ref.number, b.state])).toEqual([
      [99, 'unknown'],
      [50, 'closed'],
    ]);
  });

  it("lets an unknown body ref take the place of the forge's placeholder for a blocker it cannot show", async () => {
    const hidden = { repo: { owner: '-', name: 'hidden' }, number: 8001 };
    const base = snap([{ ...issue(8, 'Blocked by #99'), blockedBy: [hidden] }]);
    const read = async () => {
      throw new AppError('not_found', 'no such issue');
    };
    const out = await mergeBodyDeps({ ...base, externalBlockers: [{ ref: hidden, state: 'unknown' }] }, read);
    expect(out.issues[0]!.blockedBy.map((r) => r.number)).toEqual([99]);
    expect(out.externalBlockers.map((b) => [b.ref.number, b.state])).toEqual([[99, 'unknown']]);
  });

  it('keeps the placeholder when the body ref exists (they are different blockers)', async () => {
    const hidden = { repo: { owner: '-', name: 'hidden' }, number: 8001 };
    const base = snap([{ ...issue(8, 'Blocked by #50'), blockedBy: [hidden] }]);
    const read = async () => ({ state: 'open' as const, title: 'real' });
    const out = await mergeBodyDeps({ ...base, externalBlockers: [{ ref: hidden, state: 'unknown' }] }, read);
    expect(out.issues[0]!.blockedBy.map((r) => r.number)).toEqual([8001, 50]);
    expect(out.externalBlockers.map((b) => b.state)).toEqual(['unknown', 'open']);
  });

  it('lets an outage propagate instead of guessing a state', async () => {
    const read = async () => {
      throw new AppError('forge_unavailable', 'down');
    };
    await expect(mergeBodyDeps(snap([issue(2, 'Blocked by #99')]), read)).rejects.toThrow('down');
  });

  it('does not look up an open issue of the milestone, nor the issue itself', async () => {
    const asked: number[] = [];
    const read = async (r: { number: number }) => {
      asked.push(r.number);
      return { state: 'open' as const, title: '' };
    };
    const out = await mergeBodyDeps(snap([issue(1, 'Depends on #2 #1'), issue(2, '')]), read);
    expect(asked).toEqual([]);
    expect(out.issues[0]!.blockedBy.map((r) => r.number)).toEqual([2]);
  });
});
