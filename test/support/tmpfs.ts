// A small real tmpfs a test mounts (it runs as root) to fill a disk for real: the kernel's ENOSPC,
// git's own words, and fs.statfs all see it as they would a full disk.
import { execFileSync } from 'node:child_process';
import { appendFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './git.ts';

export const mountTmpfs = (sizeBytes: number) => {
  const dir = tempDir('blitz-tmpfs-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir]);
  const filler = join(dir, 'filler.bin');
  const free = (): number => {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  };
  return {
    dir,
    free,
    /**
     * Fills the filesystem until only `leaveBytes` are free. With 0 it then appends until the kernel
     * itself says ENOSPC, so no page is left for a small write whatever statfs counted a moment before.
     */
    fill(leaveBytes: number) {
      writeFileSync(filler, Buffer.alloc(Math.max(0, free() - leaveBytes)));
      if (leaveBytes > 0) return;
      const page = Buffer.alloc(4096);
      for (;;) {
        try {
          appendFileSync(filler, page);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') return;
          throw err;
        }
      }
    },
    /** Frees what fill() took. */
    clear() {
      rmSync(filler, { force: true });
    },
    unmount() {
      execFileSync('umount', ['--lazy', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
