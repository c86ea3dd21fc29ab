// `npm test` type-checks with `tsc --noEmit` (tsconfig.json): every TypeScript file the repository
// keeps must be in that program, or a script (`npm run demo`, `npm run schemas`, the agents tier) can
// rot unseen until someone runs it.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

describe('tsconfig.json', () => {
  it('takes in every TypeScript file git tracks, scripts/ and the vitest configs included', () => {
    const read = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
    expect(read.error).toBeUndefined();
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
    const checked = new Set(parsed.fileNames.map((f) => f.slice(root.length + 1)));
    const tracked = execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.mts', '*.cts'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 10_000,
    })
      .split('\0')
      .filter((f) => f !== '' && !f.endsWith('.d.ts'));
    expect(tracked).toContain('scripts/demo.ts');
    expect(tracked.filter((f) => !checked.has(f))).toEqual([]);
  });
});
