// The files of an attempt's directory (its log, exit record) are written by the worker's process in
// its sandbox, so the worker can swap any of them for a link, a fifo or a device. The runner reads
// them as the bot: never through a link (a log linked to `/proc/<bot pid>/environ` would put the bot's
// secrets in a failure summary), only a regular file, and never waiting on a fifo's writer.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The open file, when `path` is a regular file and not a link; undefined otherwise. */
const openOwn = (path: string): number | undefined => {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch {
    return undefined;
  }
  try {
    if (fstatSync(fd).isFile()) return fd;
  } catch {
    // Fall through: closed below.
  }
  closeSync(fd);
  return undefined;
};

/** Size, mtime and inode of a worker's file; undefined when absent or not a regular file. */
export const workerFileStat = (path: string): { size: number; mtimeMs: number; ino: number } | undefined => {
  const fd = openOwn(path);
  if (fd === undefined) return undefined;
  try {
    const { size, mtimeMs, ino } = fstatSync(fd);
    return { size, mtimeMs, ino };
  } finally {
    closeSync(fd);
  }
};

/** A worker's file as text (at most its last `maxBytes`); '' when absent, a link or not a regular file. */
export const readWorkerFile = (path: string, maxBytes = Number.POSITIVE_INFINITY): string => {
  const fd = openOwn(path);
  if (fd === undefined) return '';
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buf = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buf, read, length - read, size - length + read);
      if (n === 0) break;
      read += n;
    }
    return buf.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
};
