// `blitz-bot config validate` through the compiled entry on real files, and the config JSON Schemas as
// the bot serves them: the same documents `npm run schemas` publishes in schema/.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { run } from '../../src/runner/exec.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { blitzBotArgv } from '../support/cli.ts';
import { removeDir, tempDir } from '../support/git.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const validate = async (files: Record<string, string>, ...args: string[]) => {
  const dir = tempDir('blitz-validate-');
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return run(blitzBotArgv('config', 'validate', ...args), {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    timeoutMs: 60_000,
  });
};

describe('blitz-bot config validate (the compiled CLI)', () => {
  it('exits 0 on a good operator file and 1 with each problem on a bad one', async () => {
    const good = await validate({ 'blitz.config.yml': 'runner: {maxSessions: 2}\n' }, 'blitz.config.yml');
    expect(good.exitCode).toBe(0);
    expect(good.stdout.trim()).toBe('blitz.config.yml: valid operator settings');
    const bad = await validate(
      { 'blitz.config.yml': 'rooster: []\nnotify:\n  - {type: slack}\n' },
      'blitz.config.yml',
    );
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('rooster: is not a setting blitz-bot knows (did you mean `roster`?)');
    expect(bad.stderr).toContain('notify entry 1 → url: give exactly one of url and urlEnv');
  });

  it('checks a repository file with --repo', async () => {
    const bad = await validate({ 'blitz.yml': 'mergeMethod: yolo\n' }, '--repo', 'blitz.yml');
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('`mergeMethod`');
    const good = await validate({ 'blitz.yml': 'build: [npm, test]\n' }, '--repo', 'blitz.yml');
    expect(good.exitCode).toBe(0);
  });
});

describe('GET /schemas/NAME', () => {
  const app = createApp({
    store: openSqliteStore(':memory:'),
    metrics: createMetrics(),
    logger: silentLogger(),
    version: 't',
    receive: async () => {
      throw new Error('no webhook expected');
    },
  });

  it.each(['blitz-config.schema.json', 'blitz.schema.json'])(
    'serves %s without a token, as published in schema/',
    async (name) => {
      const res = await app.request(`/schemas/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const published = JSON.parse(readFileSync(join('schema', name), 'utf8'));
      expect(await res.json()).toEqual(published);
      expect(published.$id).toMatch(new RegExp(`/schema/${name.replace(/\./g, '\\.')}$`));
    },
  );

  it('answers 404 in JSON for a schema it does not have', async () => {
    const res = await app.request('/schemas/..%2Fpackage.json');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });
});
