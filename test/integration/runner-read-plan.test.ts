// readPushedPlan on real git: a planner's branch without PLAN.md is "no plan", but a clone that cannot
// read the file it lists (an object gone from the clone) is an environment failure, thrown so the step
// is tried again, never taken for a planner that pushed no plan.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { planFile } from '../../src/runner/planner-task.ts';
import { readPushedPlan } from '../../src/runner/read-plan.ts';
import { repoDirFor } from '../../src/runner/workspace.ts';
import {
  commitAndPush,
  createOrigin,
  gitIn,
  type Origin,
  removeDir,
  tempDir,
  testEnv,
} from '../support/git.ts';

let origin: Origin;
let workspace: string;
const repo = { owner: 'acme', name: 'app' };
const read = (branch: string) =>
  readPushedPlan({ workspace, repo, cloneUrl: origin.url, branch, ctx: { env: testEnv() } });

beforeAll(async () => {
  origin = await createOrigin();
  workspace = tempDir('blitz-read-plan-');
  await gitIn(origin.work, 'checkout', '--quiet', '-b', 'm1/3-planned');
  await commitAndPush(origin.work, { [planFile]: '# Plan\n\nSize: S\n' }, 'plan', 'm1/3-planned');
  await gitIn(origin.work, 'checkout', '--quiet', 'main');
  await gitIn(origin.work, 'checkout', '--quiet', '-b', 'm1/4-none');
  await commitAndPush(origin.work, { 'notes.txt': 'no plan here\n' }, 'no plan', 'm1/4-none');
});

afterAll(() => {
  removeDir(origin.root);
  removeDir(workspace);
});

describe('readPushedPlan', () => {
  it('reads PLAN.md at the tip of the branch, and says "no plan" only when the commit has none', async () => {
    expect(await read('m1/3-planned')).toBe('# Plan\n\nSize: S');
    expect(await read('m1/4-none')).toBeUndefined();
  });

  it('throws an environment failure when the clone cannot read the plan it lists', async () => {
    // Before: any failed `git show` read as "no plan", and the member was refused for good.
    const dir = repoDirFor(workspace, repo.owner, repo.name);
    const blob = await gitIn(dir, 'rev-parse', `refs/remotes/origin/m1/3-planned:${planFile}`);
    const loose = join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2));
    expect(existsSync(loose)).toBe(true);
    rmSync(loose, { force: true });
    const err = await read('m1/3-planned').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAppError(err, 'git_failed')).toBe(true);
    expect((err as Error).message).toMatch(
      /^environment failure: PLAN\.md on m1\/3-planned could not be read .*tried again on the next pass$/s,
    );
    // The branch without a plan still reads as none.
    expect(await read('m1/4-none')).toBeUndefined();
  });
});
