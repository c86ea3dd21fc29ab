import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/git.ts';
import { silentLogger } from '../observability/logger.ts';
import type { Delivery, RunnerClient } from './client.ts';
import { flushFile, Outbox } from './outbox.ts';

/** A client answering from a script, one answer per request; a request past the script fails the test. */
const scripted = (answers: Delivery[]) => {
  const seen: { path: string; body: unknown }[] = [];
  const client: RunnerClient = {
    async post(path, body) {
      const answer = answers.shift();
      if (!answer) throw new Error(`unexpected request to ${path}`);
      seen.push({ path, body });
      return answer;
    },
  };
  return { client, seen };
};

const ok: Delivery = { kind: 'delivered', status: 200, body: { applied: true } };
const down: Delivery = { kind: 'unreachable', reason: 'ECONNREFUSED' };
const report = (n: number) => ({ path: 'reports' as const, body: { n } });

describe('outbox', () => {
  it('buffers in order while the bot is down, and keeps later reports behind the buffered ones', async () => {
    const file = join(tempDir(), 'buffer.jsonl');
    const { client, seen } = scripted([ok, down, down, ok, ok, ok]);
    const box = new Outbox(client, file, silentLogger());
    await box.send(report(1));
    await box.send(report(2));
    // Something is buffered: report 3 is not tried ahead of report 2.
    await box.send(report(3));
    expect(box.buffered()).toBe(2);
    expect(box.pending()).toBe(true);
    expect(await box.flush()).toEqual({ delivered: 0, refused: 0, remaining: 2 });
    expect(await box.flush()).toEqual({ delivered: 2, refused: 0, remaining: 0 });
    expect(existsSync(file)).toBe(false);
    expect(box.pending()).toBe(false);
    await box.send(report(4));
    expect(seen.map((s) => s.body)).toEqual([{ n: 1 }, { n: 2 }, { n: 2 }, { n: 2 }, { n: 3 }, { n: 4 }]);
  });

  it('drops what the bot refuses for good, but keeps everything when it refuses the token', async () => {
    const file = join(tempDir(), 'buffer.jsonl');
    const { client } = scripted([down, down]);
    const box = new Outbox(client, file, silentLogger());
    expect(box.pending()).toBe(false);
    await box.send(report(1));
    await box.send(report(2));
    const before = readFileSync(file, 'utf8');
    const unauthorized = scripted([{ kind: 'refused', status: 401, body: { error: 'unauthorized' } }]);
    expect(await flushFile(unauthorized.client, file, silentLogger())).toEqual({
      delivered: 0,
      refused: 0,
      remaining: 2,
    });
    expect(readFileSync(file, 'utf8')).toBe(before);
    const conflict = scripted([{ kind: 'refused', status: 409, body: { error: 'conflict' } }, ok]);
    expect(await flushFile(conflict.client, file, silentLogger())).toEqual({
      delivered: 1,
      refused: 1,
      remaining: 0,
    });
  });

  it('keeps the undelivered tail of a buffer, skipping lines that are not reports', async () => {
    const file = join(tempDir(), 'buffer.jsonl');
    const { client } = scripted([down, down, down]);
    const box = new Outbox(client, file, silentLogger());
    await box.send(report(1));
    await box.send(report(2));
    await box.send(report(3));
    appendFileSync(file, 'not json\n{"path":"elsewhere","body":{}}\n');
    const partial = scripted([ok, down]);
    expect(await flushFile(partial.client, file, silentLogger())).toEqual({
      delivered: 1,
      refused: 0,
      remaining: 2,
    });
    expect(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).body.n),
    ).toEqual([2, 3]);
  });
});
