import { describe, expect, it } from 'vitest';
import { HIDDEN_REPO } from './mappers.ts';
import { snapshot } from './milestones.ts';
import type { IssueNode } from './schema.ts';

const app = { owner: 'acme', name: 'app' };
const milestone = {
  number: 1,
  title: 'M1',
  description: '',
  state: 'open' as const,
  openIssues: 2,
  closedIssues: 0,
};
const none = { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] };
const link = (number: number, state: 'OPEN' | 'CLOSED', repo = 'acme/app') => ({
  number,
  title: `t${number}`,
  state,
  repository: { nameWithOwner: repo },
});
const node = (
  number: number,
  blockers: IssueNode['blockedBy']['nodes'],
  totalCount = blockers.length,
): IssueNode => ({
  id: `I${number}`,
  number,
  title: `t${number}`,
  body: '',
  state: 'OPEN',
  createdAt: '2026-01-01T00:00:00Z',
  locked: false,
  author: { login: 'a' },
  milestone: { number: 1, title: 'M1' },
  parent: null,
  labels: none,
  assignees: none,
  subIssues: none,
  blockedBy: { ...none, nodes: blockers, totalCount },
});

describe('snapshot', () => {
  it('lists each outside blocker once with its state, and leaves open milestone issues out', () => {
    const snap = snapshot(app, milestone, [
      node(1, [link(2, 'OPEN'), link(9, 'CLOSED'), link(3, 'OPEN', 'acme/lib')]),
      node(2, [link(9, 'CLOSED')]),
    ]);
    expect(snap.externalBlockers).toEqual([
      { ref: { repo: app, number: 9 }, state: 'closed', title: 't9' },
      { ref: { repo: { owner: 'acme', name: 'lib' }, number: 3 }, state: 'open', title: 't3' },
    ]);
  });

  it('keeps blockers GitHub counts but does not show as unknown, one distinct ref each', () => {
    const snap = snapshot(app, milestone, [node(1, [null], 3)]);
    expect(snap.issues[0]!.blockedBy).toHaveLength(3);
    expect(new Set(snap.issues[0]!.blockedBy.map((r) => r.number)).size).toBe(3);
    expect(snap.externalBlockers.every((b) => b.state === 'unknown' && b.ref.repo === HIDDEN_REPO)).toBe(
      true,
    );
    expect(snap.externalBlockers).toHaveLength(3);
  });
});
