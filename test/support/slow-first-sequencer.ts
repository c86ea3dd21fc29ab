// Test file order for a run without vitest's results cache (a clean clone, as in CI): the files that
// say in their first line that they are slow for a reason start first, so a long one does not begin
// last and hold the run open alone on one core while the others sit idle. With the cache (durations
// of an earlier run) vitest's own order, longest first, is kept.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const slowMarker = /^\/\/ Slow for a reason/;

const saysSlow = (file: string): boolean => {
  try {
    return slowMarker.test(readFileSync(file, 'utf8').slice(0, 200));
  } catch {
    return false;
  }
};

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const cached = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`);
    if (sorted.every(cached)) return sorted;
    const slow = new Map(sorted.map((f) => [f, saysSlow(f.moduleId)]));
    // Stable: the base order (projects grouped, larger files first) holds within each group.
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => {
        if (a.f.project.name !== b.f.project.name) return a.i - b.i;
        return Number(slow.get(b.f)) - Number(slow.get(a.f)) || a.i - b.i;
      })
      .map(({ f }) => f);
  }
}
