// The commands a piece of code started, by kind (src/runner/command-count.ts): what `fn` adds to this
// process's counts. Nothing else may run commands meanwhile (tests of a file run one at a time).
import { commandCounts } from '../../src/runner/command-count.ts';

export const commandsOf = async (fn: () => Promise<unknown>): Promise<Record<string, number>> => {
  const before = commandCounts();
  await fn();
  const added: Record<string, number> = {};
  for (const [kind, n] of Object.entries(commandCounts())) {
    const d = n - (before[kind] ?? 0);
    if (d > 0) added[kind] = d;
  }
  return added;
};
