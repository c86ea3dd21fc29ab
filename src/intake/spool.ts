// The delivery spool: where a verified webhook goes when the store cannot take it, so the forge's
// delivery is not lost while the database is down. One file per delivery in a directory of the data
// dir (0700, files 0600), written to a temporary name, fsync'd, renamed, and the directory fsync'd:
// once `add` resolves the delivery survives a crash or a power cut. Bounded by a count and a byte
// cap; past either `add` refuses (AppError `store_error`, answered 503 so the forge sees a failure
// and can redeliver). Files are named by arrival so a listing is the order they came in.
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../errors.ts';

export const spoolEntrySchema = z.object({
  forge: z.enum(['github', 'gitea']),
  deliveryId: z.string().min(1).max(200),
  event: z.string().min(1).max(200),
  payload: z.unknown(),
  /** When the bot took it (ISO). */
  receivedAt: z.string(),
});

export type SpoolEntry = z.infer<typeof spoolEntrySchema>;

export interface SpooledFile {
  /** The file's name in the spool directory (its order key). */
  name: string;
  entry: SpoolEntry;
}

export interface SpoolLimits {
  /** Deliveries the spool holds at most (default 10 000). */
  maxEntries: number;
  /** Bytes of payload the spool holds at most (default 100 MiB). */
  maxBytes: number;
}

export const defaultSpoolLimits: SpoolLimits = { maxEntries: 10_000, maxBytes: 100 * 1024 * 1024 };

export interface Spool {
  readonly dir: string;
  /** Deliveries on disk now, and those being written. */
  depth(): number;
  /** Writes the delivery durably; resolves once it is on disk. Throws `store_error` (spool_full) past the cap. */
  add(entry: SpoolEntry): Promise<void>;
  /** What is on disk, oldest first; unreadable files are set aside (renamed `.bad`) and reported. */
  list(): { files: SpooledFile[]; setAside: string[] };
  /** Removes a replayed delivery (durably). */
  remove(name: string): Promise<void>;
}

const entryFile = /^\d{16}-\d{6}\.json$/;

/** A rename or an unlink is durable once the directory itself is fsync'd. */
const fsyncDir = async (dir: string): Promise<void> => {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
};

/** Opens (creating it, 0700) the spool directory and counts what a previous process left in it. */
export const openSpool = (dir: string, limits: SpoolLimits = defaultSpoolLimits): Spool => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Verified bodies still name people and repositories: only the bot's user reads them.
  chmodSync(dir, 0o700);
  // A temporary file is a write that never finished: its webhook was never answered 2xx.
  for (const name of readdirSync(dir)) if (name.endsWith('.tmp')) rmSync(join(dir, name), { force: true });
  const sizes = new Map<string, number>();
  for (const name of readdirSync(dir))
    if (entryFile.test(name)) sizes.set(name, statSync(join(dir, name)).size);
  let bytes = [...sizes.values()].reduce((a, b) => a + b, 0);
  // Reserved while being written, so concurrent adds cannot together pass the cap.
  let reserved = 0;
  let reservedBytes = 0;
  let seq = 0;
  // New names sort after whatever is left on disk, even when the clock went back.
  let lastMs = Math.max(0, ...[...sizes.keys()].map((n) => Number(n.slice(0, 16))));

  const nextName = (): string => {
    // Arrival order across restarts: the clock's ms, then a counter within this process.
    const ms = Math.max(Date.now(), lastMs + (seq >= 999_999 ? 1 : 0));
    if (ms !== lastMs) seq = 0;
    lastMs = ms;
    seq += 1;
    return `${String(ms).padStart(16, '0')}-${String(seq).padStart(6, '0')}.json`;
  };

  return {
    dir,
    depth: () => sizes.size + reserved,
    async add(entry) {
      const text = JSON.stringify(entry);
      const size = Buffer.byteLength(text);
      if (sizes.size + reserved + 1 > limits.maxEntries || bytes + reservedBytes + size > limits.maxBytes) {
        throw new AppError('store_error', 'the store is unreachable and the delivery spool is full', {
          reason: 'spool_full',
          depth: sizes.size,
        });
      }
      reserved += 1;
      reservedBytes += size;
      try {
        const name = nextName();
        const tmp = join(dir, `${name}.tmp`);
        const fh = await open(tmp, 'wx', 0o600);
        try {
          await fh.writeFile(text);
          await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(tmp, join(dir, name));
        await fsyncDir(dir);
        sizes.set(name, size);
        bytes += size;
      } finally {
        reserved -= 1;
        reservedBytes -= size;
      }
    },
    list() {
      const files: SpooledFile[] = [];
      const setAside: string[] = [];
      for (const name of [...sizes.keys()].sort()) {
        const path = join(dir, name);
        let parsed: SpoolEntry | undefined;
        try {
          const r = spoolEntrySchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
          if (r.success) parsed = r.data;
        } catch {
          parsed = undefined;
        }
        if (parsed) files.push({ name, entry: parsed });
        else {
          renameSync(path, `${path}.bad`);
          bytes -= sizes.get(name) ?? 0;
          sizes.delete(name);
          setAside.push(name);
        }
      }
      return { files, setAside };
    },
    async remove(name) {
      if (!sizes.has(name)) return;
      await rm(join(dir, name), { force: true });
      bytes -= sizes.get(name) ?? 0;
      sizes.delete(name);
      await fsyncDir(dir);
    },
  };
};
