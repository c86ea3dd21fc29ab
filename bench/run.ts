// `npm run bench`: runs every bench/*.bench.ts (or those named on the command line), prints each
// figure as `name: value unit` and writes them all to bench/results.json. Figures are printed,
// never asserted: each module measures its baseline in the same run and prints the ratio beside it.
// Last, the table of issue 19 (bench/summary.ts) from this run's figures. A run of named modules
// keeps the other modules' figures already in bench/results.json.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Bench, Figure } from './figures.ts';
import { issue19Table } from './summary.ts';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = (await readdir(here))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

const results: Record<string, { value: number; unit: string }> = {};
for (const file of files) {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: Bench };
  console.log(`# ${file}`);
  const figures: Figure[] = await mod.default();
  for (const f of figures) {
    console.log(`${f.name}: ${f.value} ${f.unit}`);
    results[f.name] = { value: f.value, unit: f.unit };
  }
}
// Issue 19's table: each row's figure beside its same-run baseline and its goal.
console.log(`# summary (issue 19)\n${issue19Table(results)}`);
// A run of some modules (`npm run bench -- scale`) replaces their figures and keeps the others'.
const path = join(here, 'results.json');
const earlier =
  only.length > 0
    ? ((await readFile(path, 'utf8').then(JSON.parse, () => ({}))) as Record<
        string,
        { value: number; unit: string }
      >)
    : {};
const kept = Object.keys(earlier).filter((k) => !(k in results)).length;
await writeFile(path, `${JSON.stringify({ ...earlier, ...results }, null, 2)}\n`);
console.log(
  `wrote ${Object.keys(results).length} figures to bench/results.json${kept ? ` (${kept} kept from an earlier run)` : ''}`,
);
