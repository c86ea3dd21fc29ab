import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git } from './git.ts';
import { HANDOFF_MAX_FILES, withChangedFiles } from './handoff.ts';
import { attemptJobSchema } from './types.ts';

const ctx = { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() } };
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const repoWithMerge = async (files: number) => {
  dir = mkdtempSync(join(tmpdir(), 'handoff-'));
  const g = (args: string[]) => git(['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], dir!, ctx);
  await g(['init', '-q', '-b', 'main']);
  writeFileSync(join(dir, 'README'), 'x\n');
  await g(['add', '.']);
  await g(['commit', '-qm', 'root']);
  await g(['checkout', '-qb', 'topic']);
  for (let i = 0; i < files; i++) writeFileSync(join(dir, `f${i}.txt`), `${i}\n`);
  await g(['add', '.']);
  await g(['commit', '-qm', 'work']);
  await g(['checkout', '-q', 'main']);
  writeFileSync(join(dir, 'main-only.txt'), 'm\n');
  await g(['add', '.']);
  await g(['commit', '-qm', 'meanwhile on main']);
  await g(['merge', '--no-ff', '-qm', 'merge topic', 'topic']);
  return (await g(['rev-parse', 'HEAD'])).trim();
};

describe('withChangedFiles', () => {
  it("adds what the merge brought in (first parent to merge), not the base's own commits", async () => {
    const sha = await repoWithMerge(2);
    const [h] = (await withChangedFiles([{ issue: '#1', title: 't', mergedSha: sha }], dir!, ctx))!;
    expect(h!.files).toMatch(/f0\.txt +\| 1 \+/);
    expect(h!.files).toMatch(/f1\.txt +\| 1 \+/);
    expect(h!.files).not.toContain('main-only.txt');
    expect(h!.files).toContain('2 files changed');
  });

  it('caps a huge merge at the file limit and keeps the summary line', async () => {
    const sha = await repoWithMerge(HANDOFF_MAX_FILES + 5);
    const [h] = (await withChangedFiles([{ issue: '#1', title: 't', mergedSha: sha }], dir!, ctx))!;
    const listed = h!.files!.split('\n').filter((l) => l.includes('|'));
    expect(listed).toHaveLength(HANDOFF_MAX_FILES);
    expect(h!.files).toContain(`${HANDOFF_MAX_FILES + 5} files changed`);
  });

  it('a commit the clone does not hold, or none recorded, leaves the entry without files', async () => {
    await repoWithMerge(1);
    const out = await withChangedFiles(
      [
        { issue: '#1', title: 'gone', mergedSha: 'a'.repeat(40) },
        { issue: '#2', title: 'unknown' },
      ],
      dir!,
      ctx,
    );
    expect(out).toEqual([
      { issue: '#1', title: 'gone', mergedSha: 'a'.repeat(40) },
      { issue: '#2', title: 'unknown' },
    ]);
    expect(await withChangedFiles(undefined, dir!, ctx)).toBeUndefined();
  });
});

describe('a handoff that is not a sha', () => {
  it('never reaches git: the job schema refuses it, and the runner skips it if handed one anyway', async () => {
    const evil = '--output=/tmp/handoff-pwned';
    const job = attemptJobSchema.shape.handoff.safeParse([{ issue: '#1', title: 't', mergedSha: evil }]);
    expect(job.success).toBe(false);
    await repoWithMerge(1);
    const out = await withChangedFiles([{ issue: '#1', title: 't', mergedSha: evil }], dir!, ctx);
    expect(out![0]!.files).toBeUndefined();
  });
});
