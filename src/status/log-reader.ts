// Reads a worker's prompt or stream log for the attempt page: only under the given roots (the
// runner's workspace and log directories), only regular files, and at most the last `maxBytes`, so a
// ledger row can never make the page read an arbitrary file or load a gigabyte into memory.
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';

export interface LogText {
  text: string;
  /** The file was longer: only its tail is in `text`. */
  truncated: boolean;
}

export type ReadLog = (path: string) => Promise<LogText | undefined>;

export const defaultMaxLogBytes = 4 * 1024 * 1024;

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** A reader confined to `roots`; anything else (missing, outside, not a file) reads as undefined. */
export const createLogReader = (opts: { roots: string[]; maxBytes?: number }): ReadLog => {
  const maxBytes = opts.maxBytes ?? defaultMaxLogBytes;
  return async (path) => {
    if (!isAbsolute(path)) return undefined;
    let real: string;
    try {
      real = await realpath(resolve(path));
    } catch {
      return undefined;
    }
    const roots = await Promise.all(opts.roots.map((r) => realpath(resolve(r)).catch(() => undefined)));
    if (!roots.some((r) => r !== undefined && inside(r, real))) return undefined;
    // The worker wrote it: a fifo in its place must not hold a thread of the bot, nor a link swapped
    // in after realpath lead elsewhere.
    const file = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
      () => undefined,
    );
    if (!file) return undefined;
    try {
      const stat = await file.stat();
      if (!stat.isFile()) return undefined;
      const length = Math.min(stat.size, maxBytes);
      const buffer = Buffer.alloc(length);
      await file.read(buffer, 0, length, stat.size - length);
      return { text: buffer.toString('utf8'), truncated: stat.size > maxBytes };
    } finally {
      await file.close();
    }
  };
};
