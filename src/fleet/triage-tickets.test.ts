import { describe, expect, it } from 'vitest';
import type { TicketRef } from '../commands/schema.ts';
import { AppError } from '../errors.ts';
import type { Issue, RepoRef } from '../forges/types.ts';
import { triageTickets } from './triage-tickets.ts';

const home: RepoRef = { owner: 'acme', name: 'app' };
const issue = (repo: RepoRef, number: number, over: Partial<Issue> = {}): Issue => ({
  ref: { repo, number },
  title: `Ticket ${number}`,
  body: 'A small change.',
  state: 'open',
  labels: [],
  assignees: [],
  author: 'alice',
  createdAt: '2026-01-01T00:00:00Z',
  locked: false,
  isPullRequest: false,
  ...over,
});

const base = (issues: Issue[], writable = (_r: RepoRef) => true) => ({
  home,
  labels: [] as string[],
  getIssue: async (repo: RepoRef, n: number) => {
    const found = issues.find(
      (i) => i.ref.repo.name === repo.name && i.ref.repo.owner === repo.owner && i.ref.number === n,
    );
    if (!found) throw new AppError('not_found', 'no such issue');
    return found;
  },
  listLabelled: async () => issues.filter((i) => i.labels.some((l) => l.name === 'ready')),
  canWrite: async (r: RepoRef) => writable(r),
  inOtherFleet: new Map<string, string>(),
  host: 'github.com',
});

describe('fleet triage', () => {
  it('runs open issues in any reachable repo and names every skipped one with its reason', async () => {
    const lib = { owner: 'acme', name: 'lib' };
    const r = await triageTickets({
      ...base([
        issue(home, 1),
        issue(home, 2, { state: 'closed' }),
        issue(home, 3, { locked: true }),
        issue(home, 4, { isPullRequest: true }),
        issue(home, 5, { title: 'Epic: views', body: '- [ ] #1' }),
        issue(home, 6, { body: 'ssh into the prod box and restart the service' }),
        issue(lib, 7),
      ]),
      refs: [
        ...[1, 2, 3, 4, 5, 6, 99].map((number): TicketRef => ({ number })),
        { owner: 'acme', repo: 'lib', number: 7 },
        { owner: 'acme', repo: 'app', number: 1 },
        { number: 1, host: 'evil.example' },
      ],
    });
    expect(r.run.map((t) => `${t.repo}#${t.number}`)).toEqual(['acme/app#1', 'acme/lib#7']);
    expect(r.skipped).toEqual([
      { ticket: '#1', reason: 'it is on another forge (evil.example)' },
      { ticket: '#2', reason: 'it is closed' },
      { ticket: '#3', reason: 'it is locked' },
      { ticket: '#4', reason: 'it is a pull request, not an issue' },
      { ticket: '#5', reason: 'it is an epic (a tracking issue); name its children instead' },
      { ticket: '#6', reason: expect.stringContaining('production access') },
      { ticket: '#99', reason: 'the bot cannot reach it (no such issue, or a repo it is not installed on)' },
      { ticket: '#1', reason: 'it is named twice; it runs once' },
    ]);
  });

  it('skips a ticket where the person cannot write, one already in a live fleet, and any beyond the limit', async () => {
    const lib = { owner: 'acme', name: 'lib' };
    const many = Array.from({ length: 55 }, (_, i) => issue(home, i + 1, { labels: [{ name: 'ready' }] }));
    const input = base([...many, issue(lib, 1)], (r) => r.name !== 'lib');
    input.inOtherFleet.set('acme/app#2', 'acme/app#100');
    const r = await triageTickets({
      ...input,
      refs: [{ owner: 'acme', repo: 'lib', number: 1 }],
      labels: ['ready'],
    });
    expect(r.skipped[0]).toEqual({
      ticket: 'acme/lib#1',
      reason: 'you need write permission on acme/lib to run it',
    });
    expect(r.skipped).toContainEqual({ ticket: '#2', reason: 'it is already in the fleet on acme/app#100' });
    expect(r.run).toHaveLength(50);
    expect(r.skipped.filter((s) => s.reason === 'a fleet runs at most 50 tickets')).toHaveLength(4);
  });
});
