// A real second OS user for the tests that start workers as another uid (`runner.user`): created with
// useradd when this host has none yet (only root can, and only root can start a process as another
// user; CI runs as root). Elsewhere those tests are skipped, and say why.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './git.ts';

export const TEST_WORKER = 'blitz-test-worker';

export interface TestWorker {
  name: string;
  uid: number;
  gid: number;
}

const lookup = (): TestWorker | undefined => {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${TEST_WORKER}:`));
  const f = line?.split(':');
  return f ? { name: TEST_WORKER, uid: Number(f[2]), gid: Number(f[3]) } : undefined;
};

/** Why tests of a second uid cannot run here; undefined when they can. */
export const noSecondUser: string | undefined =
  process.getuid?.() === 0
    ? undefined
    : 'skipped: not root, so no test user can be made and no process started as another user';

/**
 * The test worker user, made if missing (several test files may ask at once: a useradd that loses the
 * race finds the user made). Throws when it cannot be made: call only when `noSecondUser` is undefined.
 */
export const testWorker = (): TestWorker => {
  for (let i = 0; i < 5; i++) {
    const found = lookup();
    if (found) return found;
    spawnSync(
      'useradd',
      [
        '--system',
        '--user-group',
        '--no-create-home',
        '--home-dir',
        '/nonexistent',
        '--shell',
        '/usr/sbin/nologin',
        TEST_WORKER,
      ],
      { stdio: 'ignore' },
    );
  }
  const found = lookup();
  if (!found) throw new Error(`useradd could not make the test user ${TEST_WORKER}`);
  return found;
};

/**
 * A copy of `file` in a folder every user can read and enter: a test checkout may sit in a folder only
 * root can enter (a mktemp -d clone), and the worker user must run what a roster entry names, as it
 * would from where an operator installs it. Returns the copy's path.
 */
export const reachableCopy = (file: string, name: string): string => {
  const bin = tempDir('blitz-reachable-');
  chmodSync(bin, 0o755);
  const copy = join(bin, name);
  copyFileSync(file, copy);
  chmodSync(copy, 0o755);
  return copy;
};
