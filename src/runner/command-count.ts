// How many short commands this process started, by kind (`git fetch`, `git log`, `claude`): counted in
// memory by exec.ts `run`, the one way they start, so the scale bench (bench/scale-bot.ts) can print
// what the bot spends its process starts on. A map increment per command; names only, never arguments.

const counts = new Map<string, number>();

/** A command's kind: git and its subcommand (past `-c key=value` and `-C dir`), else the program's name. */
export const commandKind = (argv: readonly string[]): string => {
  const program = (argv[0] ?? '').split('/').pop() ?? '';
  if (program !== 'git') return program;
  let i = 1;
  while (argv[i] === '-c' || argv[i] === '-C') i += 2;
  return `git ${argv[i] ?? ''}`.trim();
};

export const countCommand = (argv: readonly string[]): void => {
  const kind = commandKind(argv);
  counts.set(kind, (counts.get(kind) ?? 0) + 1);
};

/** The counts so far, by kind. */
export const commandCounts = (): Record<string, number> => Object.fromEntries(counts);
