import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { heapHint, INTENDED_OLD_SPACE_MB } from './heap.ts';

/** The heap limit V8 reports in a node process started with `flags` (MB, as heapLimitMb rounds it). */
const limitUnder = (flags: string[]): number => {
  const out = spawnSync(
    process.execPath,
    [...flags, '-p', 'Math.round(require("node:v8").getHeapStatistics().heap_size_limit / 1048576)'],
    { encoding: 'utf8', timeout: 10_000 },
  );
  return Number(out.stdout.trim());
};

describe('heapHint', () => {
  it('says nothing for node under the cap npm start and the image give', () => {
    const limit = limitUnder([`--max-old-space-size=${INTENDED_OLD_SPACE_MB}`]);
    expect(limit).toBeGreaterThanOrEqual(INTENDED_OLD_SPACE_MB);
    expect(heapHint(limit)).toBeUndefined();
    expect(heapHint(limitUnder(['--max-old-space-size=512']))).toBeUndefined();
  });

  it('names the limit and how to give the bin the cap when node runs with a much larger one', () => {
    const limit = limitUnder(['--max-old-space-size=4096']);
    expect(heapHint(limit)).toBe(
      `The bot runs with a ${limit} MB heap limit; npm start and the image cap it at 1024 MB, under which ` +
        'it peaks lower. Started as the blitz-bot bin, give node the same cap: ' +
        'NODE_OPTIONS=--max-old-space-size=1024 blitz-bot serve',
    );
  });
});
