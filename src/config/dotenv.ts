// The optional `.env` file: loaded into the environment at start (before loadEnv), and updated by the
// GitHub App registration flow, which writes the new app's credentials there as Probot does. Its path
// is BLITZ_ENV_FILE (default `./.env`), so a container keeps it on a volume: the registration then
// survives the container's recreation, and every replica that mounts the volume reads it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/** Where the `.env` file is: BLITZ_ENV_FILE, or `.env` in the working directory. */
export const dotenvPath = (source: Record<string, string | undefined> = process.env): string =>
  source.BLITZ_ENV_FILE?.trim() || '.env';

/**
 * Load the `.env` file when it exists. A variable the environment sets to a value wins; one it sets
 * empty is filled from the file (compose passes `APP_ID: ${APP_ID:-}` as an empty variable, and the
 * registration's APP_ID in the file must still count).
 */
export const loadDotenvFile = (
  path = dotenvPath(),
  target: Record<string, string | undefined> = process.env,
): boolean => {
  if (!existsSync(path)) return false;
  for (const [name, value] of Object.entries(parseEnv(readFileSync(path, 'utf8'))))
    if (!target[name]?.trim()) target[name] = value;
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
