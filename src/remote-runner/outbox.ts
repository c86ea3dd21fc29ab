// Reports and job results on their way to the bot. Delivered at once while the bot answers; while
// it does not, appended in order to a JSONL buffer (`<workspace>/.runner/buffer.jsonl`) and flushed
// when it is back. The bot deduplicates every entry (seq per attempt, completion per holder), so a
// flush that is interrupted and repeated, or run twice by hand, never doubles anything.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../observability/logger.ts';
import type { RunnerClient } from './client.ts';

const entrySchema = z.object({
  path: z.enum(['reports', 'complete', 'fail', 'refuse']),
  body: z.unknown(),
});
export type OutboxEntry = z.infer<typeof entrySchema>;

export interface FlushResult {
  delivered: number;
  refused: number;
  remaining: number;
}

export class Outbox {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: RunnerClient,
    readonly file: string,
    private readonly logger: Logger,
  ) {}

  /** Delivers in order after everything already buffered; buffers when the bot does not answer. */
  send(entry: OutboxEntry): Promise<void> {
    return this.serial(async () => {
      if (this.pending() || !(await this.deliver(entry))) this.append(entry);
    });
  }

  /** Delivers the buffer in order, stopping at the first entry the bot cannot take yet. */
  flush(): Promise<FlushResult> {
    return this.serial(() => flushFile(this.client, this.file, this.logger));
  }

  buffered(): number {
    return readEntries(this.file, this.logger).length;
  }

  /**
   * Whether anything waits in the buffer: one stat, asked on every send and every agent tick. (It
   * was a parse of the whole buffer there, which grows while the bot is away: O(n) per report.)
   */
  pending(): boolean {
    try {
      return statSync(this.file).size > 0;
    } catch {
      return false;
    }
  }

  private append(entry: OutboxEntry): void {
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
  }

  private async deliver(entry: OutboxEntry): Promise<boolean> {
    return (await deliverEntry(this.client, entry, this.logger)) !== 'unreachable';
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }
}

const readEntries = (file: string, logger: Logger): OutboxEntry[] => {
  if (!existsSync(file)) return [];
  const entries: OutboxEntry[] = [];
  for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      const parsed = entrySchema.safeParse(JSON.parse(line));
      if (parsed.success) entries.push(parsed.data);
      else logger.warn({ file, line: i + 1 }, 'buffered report is malformed; skipped');
    } catch {
      logger.warn({ file, line: i + 1 }, 'buffered report is not JSON; skipped');
    }
  }
  return entries;
};

const deliverEntry = async (
  client: RunnerClient,
  entry: OutboxEntry,
  logger: Logger,
): Promise<'delivered' | 'refused' | 'unreachable'> => {
  const res = await client.post(entry.path, entry.body);
  // A token the bot does not accept refuses everything alike: keep the buffer for a good token.
  if (res.kind === 'refused' && res.status === 401) {
    logger.error({ path: entry.path }, 'the bot does not accept this runner token; reports stay buffered');
    return 'unreachable';
  }
  // A refusal will not change on retry (a lease lost to another runner, an attempt the bot has
  // closed): it is logged and dropped rather than blocking everything buffered behind it.
  if (res.kind === 'refused')
    logger.warn({ path: entry.path, status: res.status, answer: res.body }, 'bot refused a report');
  return res.kind;
};

/** Delivers a buffer file (also `blitz-bot runner flush FILE`); what is not delivered stays in it. */
export const flushFile = async (client: RunnerClient, file: string, logger: Logger): Promise<FlushResult> => {
  const entries = readEntries(file, logger);
  let delivered = 0;
  let refused = 0;
  let i = 0;
  for (; i < entries.length; i++) {
    const result = await deliverEntry(client, entries[i]!, logger);
    if (result === 'unreachable') break;
    if (result === 'delivered') delivered++;
    else refused++;
  }
  const rest = entries.slice(i);
  if (rest.length === 0) rmSync(file, { force: true });
  else if (i > 0) {
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, rest.map((e) => `${JSON.stringify(e)}\n`).join(''));
    renameSync(tmp, file);
  }
  return { delivered, refused, remaining: rest.length };
};
