// `npm run build` step 2: copies what tsc does not emit from src/ into dist/ (the SQL migrations, the
// worker wrapper), so `node dist/main.js` finds them beside the compiled modules. Plain Node, no tsx.
import { cpSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );

for (const file of walk(src).filter((f) => !f.endsWith('.ts'))) {
  const rel = relative(src, file);
  cpSync(file, join(dist, rel));
  console.log(`copied src/${rel}`);
}
