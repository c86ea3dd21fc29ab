// `blitz-bot serve` through the real CLI entry with a broken operator file: it must not start, and it
// says which fields are wrong (and the process exits non-zero), so a deploy fails loudly.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/runner/exec.ts';
import { blitzBotArgv } from '../support/cli.ts';
import { removeDir, tempDir, testEnv } from '../support/git.ts';

describe('serve with a broken blitz.config.yml', () => {
  it('exits non-zero naming each bad field, before listening', async () => {
    const dir = tempDir('blitz-serve-config-');
    try {
      const config = join(dir, 'blitz.config.yml');
      // Tried: a negative session limit and a roster entry with an unknown tool.
      writeFileSync(
        config,
        'runner:\n  maxSessions: -1\nroster:\n  - { name: x, tool: nope, roles: [blitz], tiers: [execution] }\n',
      );
      const res = await run(blitzBotArgv('serve'), {
        cwd: resolve('.'),
        env: {
          ...testEnv(),
          LOG_LEVEL: 'silent',
          PORT: '0',
          HOST: '127.0.0.1',
          DATABASE_URL: `sqlite:${join(dir, 'blitz.db')}`,
          BLITZ_CONFIG: config,
        },
        timeoutMs: 30_000,
      });
      expect(res.exitCode).toBe(1);
      expect(res.stderr).toContain('is invalid');
      expect(res.stderr).toContain('runner → maxSessions');
      expect(res.stderr).toContain('roster entry 1 → tool');
      expect(res.stderr).not.toContain('listening');
    } finally {
      removeDir(dir);
    }
  }, 40_000);
});
