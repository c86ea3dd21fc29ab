// The file order of a run: without an earlier run's durations, the files whose first line says they are
// slow start first (larger first among each group, as vitest orders them); with durations, vitest's own
// order (longest first) stands. Real test files, a stand-in for vitest's results cache.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { SlowFirstSequencer } from './slow-first-sequencer.ts';

const root = resolve(import.meta.dirname, '..', '..');
const files = [
  'test/integration/status-cli.test.ts', // not marked
  'test/integration/intake-http.test.ts', // not marked, large
  'test/integration/fleet-interrupt.test.ts', // marked slow, small
  'test/integration/blitz-commands.test.ts', // marked slow
];
const project = { name: 'integration', config: { sequence: { groupOrder: 0 }, isolate: true } };
const specs = files.map((f) => ({ moduleId: resolve(root, f), project })) as unknown as TestSpecification[];

const sequencer = (durations?: Record<string, number>) =>
  new SlowFirstSequencer({
    config: { root },
    cache: {
      getFileTestResults: (key: string) =>
        durations ? { failed: false, duration: durations[key.split(':')[1]!] } : undefined,
      getFileStats: (key: string) => ({ size: statSync(resolve(root, key.split(':')[1]!)).size }),
    },
  } as never);

const names = (s: TestSpecification[]) => s.map((f) => f.moduleId.slice(root.length + 1));

describe('slow-first file order', () => {
  it('starts the files marked slow first when there are no durations of an earlier run', async () => {
    const order = names(await sequencer().sort(specs));
    expect(order.slice(0, 2).sort()).toEqual([
      'test/integration/blitz-commands.test.ts',
      'test/integration/fleet-interrupt.test.ts',
    ]);
    // Among the rest, vitest's own order: the larger file first.
    expect(order.slice(2)).toEqual([
      'test/integration/intake-http.test.ts',
      'test/integration/status-cli.test.ts',
    ]);
  });

  it('keeps the longest-first order of an earlier run when its durations are known', async () => {
    const durations = Object.fromEntries(files.map((f, i) => [f, [50, 9000, 100, 400][i]!]));
    expect(names(await sequencer(durations).sort(specs))).toEqual([
      'test/integration/intake-http.test.ts',
      'test/integration/blitz-commands.test.ts',
      'test/integration/fleet-interrupt.test.ts',
      'test/integration/status-cli.test.ts',
    ]);
  });
});
