// The optional `.env` file: loaded into the environment at start (before loadEnv), and updated by the
// GitHub App registration flow, which writes the new app's credentials there as Probot does.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** Load `.env` when it exists; variables already set in the environment win. */
export const loadDotenvFile = (path = '.env'): boolean => {
  if (!existsSync(path)) return false;
  process.loadEnvFile(path);
  return true;
};

const quote = (value: string): string =>
  /^[A-Za-z0-9_.:/@+-]*$/.test(value) ? value : JSON.stringify(value);

/** Set (replace or append) variables in a `.env` file, keeping every other line as it was. */
export const updateDotenvFile = (path: string, values: Record<string, string>): void => {
  const lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n') : [];
  const pending = new Map(Object.entries(values));
  const out = lines.map((line) => {
    const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (name === undefined || !pending.has(name)) return line;
    const value = pending.get(name)!;
    pending.delete(name);
    return `${name}=${quote(value)}`;
  });
  while (out.length > 0 && out.at(-1) === '') out.pop();
  for (const [name, value] of pending) out.push(`${name}=${quote(value)}`);
  writeFileSync(path, `${out.join('\n')}\n`, { mode: 0o600 });
};
