// Vitest global setup: the tests that start blitz-bot as a process run the compiled dist/main.js (as
// the `blitz-bot` bin does), so dist/ must match src/. Builds when dist/.build-stamp is missing or
// older than any source file or tsconfig; a fresh dist costs one directory walk.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const stamp = 'dist/.build-stamp';

const newestSource = (): number => {
  let newest = Math.max(statSync('tsconfig.json').mtimeMs, statSync('tsconfig.build.json').mtimeMs);
  for (const entry of readdirSync('src', { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
};

export const distIsFresh = (): boolean => existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource();

export default function setup(): void {
  if (distIsFresh()) return;
  console.log('dist/ is missing or older than src/: running `npm run build`');
  const res = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  if (res.status !== 0) throw new Error(`npm run build failed (exit ${res.status ?? res.signal})`);
}
