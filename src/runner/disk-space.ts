// Free space on the filesystem a worker writes to (fs.statfs): a run parked on a full disk resumes its
// session only once this says there is room again, so a resume is never a worker started onto a full disk.
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Bytes an unprivileged process may still write on the filesystem holding `path` (or its nearest existing parent). */
export const freeBytes = async (path: string): Promise<number> => {
  let at = path;
  for (;;) {
    try {
      const s = await statfs(at);
      return s.bavail * s.bsize;
    } catch (err) {
      const parent = dirname(at);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === at) throw err;
      at = parent;
    }
  }
};

/** True when the filesystem holding `path` has at least `minFreeBytes` free. */
export const hasRoom = async (path: string, minFreeBytes: number): Promise<boolean> =>
  (await freeBytes(path)) >= minFreeBytes;
