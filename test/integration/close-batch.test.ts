// A pass's closes planned back to back go out together (close-issue.ts `closeBatchOf`, `batchedClose`)
// through the GitHub adapter against the contract-checked fake: one request for a run of them, each
// close answering on its own; a close alone, or one the pass did not read open, goes on its own.
import { afterEach, describe, expect, it } from 'vitest';
import { createGithubForge } from '../../src/forges/github/index.ts';
import type { IssueRef } from '../../src/forges/types.ts';
import type { Action } from '../../src/plan/snapshot.ts';
import { batchedClose, closeBatchOf } from '../../src/runs/close-issue.ts';
import { type FakeGithub, startFakeGithub } from '../support/fake-github/server.ts';
import { World } from '../support/world.ts';

let fake: FakeGithub | undefined;
afterEach(async () => {
  await fake?.close();
  fake?.assertNoViolations();
  fake = undefined;
});

const at = { owner: 'acme', name: 'app' };
const refOf = (key: string): IssueRef => {
  const [name, number] = key.split('#') as [string, string];
  const [owner, repo] = name.split('/') as [string, string];
  return { repo: { owner, name: repo }, number: Number(number) };
};

const setup = async () => {
  const world = new World();
  const repo = world.addRepo('acme/app');
  world.grant(repo, world.botLogin, 'write');
  world.addMilestone(repo, 'M1');
  for (const n of [1, 2, 3, 4, 5]) world.addIssue(repo, { number: n, title: `i${n}`, milestone: 'M1' });
  fake = await startFakeGithub(world);
  const forge = createGithubForge({
    baseUrl: fake.apiUrl,
    auth: { token: 'test-token' },
    botLogin: world.botLogin,
    retry: { retries: 0, minDelayMs: 1, secondMs: 0 },
  });
  await forge.loadMilestone(at, 1);
  return { world, repo, forge, fake };
};

/** Each close action in order, as perform.ts does it: its run's answer, else a close of its own. */
const performCloses = async (
  forge: ReturnType<typeof createGithubForge>,
  actions: Action[],
  readOpen: (key: string) => boolean,
) => {
  const batch = closeBatchOf(actions);
  const outcomes: string[] = [];
  for (const a of actions) {
    if (a.type !== 'close_issue') continue;
    const closeOf = (k: string) => (readOpen(k) ? { ref: refOf(k), comment: `done ${k}` } : undefined);
    const together = batchedClose(batch, forge, a.issue, closeOf);
    const done = together ?? forge.closeIssue(refOf(a.issue), { comment: `done ${a.issue}` });
    outcomes.push(
      await done.then(
        () => `${a.issue} closed`,
        () => `${a.issue} failed`,
      ),
    );
  }
  return outcomes;
};

const close = (n: number): Action => ({ type: 'close_issue', issue: `acme/app#${n}` });

describe('closes planned back to back', () => {
  it('go in one request per run of them; a close alone and one not read open go on their own', async () => {
    const { world, repo, forge, fake: f } = await setup();
    const mark = f.requests.length;
    const merge: Action = { type: 'merge', issue: 'acme/app#9', pr: 12 };
    const actions = [close(1), close(2), close(3), merge, close(4)];
    const outcomes = await performCloses(forge, actions, (k) => k !== 'acme/app#3');
    expect(outcomes).toEqual([
      'acme/app#1 closed',
      'acme/app#2 closed',
      'acme/app#3 closed',
      'acme/app#4 closed',
    ]);
    // #1 and #2 together; #3 (not read open this pass) and #4 (alone) on their own.
    expect(f.requests.slice(mark).map((r) => r.operationId)).toEqual(['graphql', 'graphql', 'graphql']);
    expect([1, 2, 3, 4, 5].map((n) => world.issue(repo, n)!.state)).toEqual([
      'closed',
      'closed',
      'closed',
      'closed',
      'open',
    ]);
    expect(world.commentsOn(repo, 2).map((c) => c.body)).toEqual(['done acme/app#2']);
  });

  it('a close of the run the forge refuses fails alone; the others close', async () => {
    const { world, repo, forge, fake: f } = await setup();
    // An issue of a repository the bot may only read: its close is refused.
    const other = world.addRepo('acme/other');
    world.grant(other, world.botLogin, 'read');
    world.addIssue(other, { number: 9, title: 'x' });
    await forge.getIssue({ repo: { owner: 'acme', name: 'other' }, number: 9 });
    const mark = f.requests.length;
    const refused: Action = { type: 'close_issue', issue: 'acme/other#9' };
    const outcomes = await performCloses(forge, [close(1), refused, close(3)], () => true);
    expect(outcomes).toEqual(['acme/app#1 closed', 'acme/other#9 failed', 'acme/app#3 closed']);
    expect(f.requests.slice(mark).map((r) => r.operationId)).toEqual(['graphql']);
    expect([1, 3].map((n) => world.issue(repo, n)!.state)).toEqual(['closed', 'closed']);
    expect(world.issue(other, 9)!.state).toBe('open');
  });
});
