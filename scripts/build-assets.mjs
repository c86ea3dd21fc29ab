// The second half of `npm run build` (after `tsc -p tsconfig.build.json`): copy the files the runtime
// reads beside its modules (the worker wrapper, the SQL migrations) from src/ into dist/, then write
// dist/.build-stamp, which the tests' global setup compares with src/ to rebuild a stale dist.
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';

const src = 'src';
const dist = 'dist';
const assets = new Set(['.mjs', '.sql']);

for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !assets.has(extname(entry.name))) continue;
  const from = join(entry.parentPath, entry.name);
  cpSync(from, join(dist, from.slice(src.length + 1)));
}
writeFileSync(join(dist, '.build-stamp'), `${new Date().toISOString()}\n`);
