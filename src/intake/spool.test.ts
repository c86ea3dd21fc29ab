import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../errors.ts';
import { openSpool, type SpoolEntry } from './spool.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'spool-test-'));
  dirs.push(d);
  return join(d, 'spool');
};

const entry = (deliveryId: string, payload: unknown = { n: deliveryId }): SpoolEntry => ({
  forge: 'gitea',
  deliveryId,
  event: 'issue_comment',
  payload,
  receivedAt: '2026-12-06T19:00:00.000Z',
});

describe('the delivery spool', () => {
  it('keeps deliveries owner-only, in the order they came, across a reopen', async () => {
    const dir = freshDir();
    const spool = openSpool(dir);
    for (const id of ['a', 'b', 'c']) await spool.add(entry(id));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    const again = openSpool(dir);
    expect(again.depth()).toBe(3);
    await again.add(entry('d'));
    const { files } = again.list();
    expect(files.map((f) => f.entry.deliveryId)).toEqual(['a', 'b', 'c', 'd']);
    await again.remove(files[0]!.name);
    expect(again.depth()).toBe(3);
    expect(
      openSpool(dir)
        .list()
        .files.map((f) => f.entry.deliveryId),
    ).toEqual(['b', 'c', 'd']);
  });

  it('refuses past its count or byte cap and keeps nothing of the refused one', async () => {
    const counted = openSpool(freshDir(), { maxEntries: 2, maxBytes: 1_000_000 });
    await counted.add(entry('a'));
    await counted.add(entry('b'));
    const err = await counted.add(entry('c')).catch((e: unknown) => e);
    expect(isAppError(err, 'store_error') && err.details.reason).toBe('spool_full');
    expect(counted.list().files.map((f) => f.entry.deliveryId)).toEqual(['a', 'b']);

    const sized = openSpool(freshDir(), { maxEntries: 100, maxBytes: 400 });
    await sized.add(entry('small'));
    await expect(sized.add(entry('big', 'x'.repeat(400)))).rejects.toThrow(/spool is full/);
    expect(sized.depth()).toBe(1);
  });

  it('drops a write that never finished and sets aside a file it cannot read', async () => {
    const dir = freshDir();
    const spool = openSpool(dir);
    await spool.add(entry('good'));
    writeFileSync(join(dir, '0000000000000001-000001.json.tmp'), '{"forge":');
    writeFileSync(join(dir, '0000000000000002-000001.json'), 'not json');
    const reopened = openSpool(dir);
    expect(readdirSync(dir).some((n) => n.endsWith('.tmp'))).toBe(false);
    const { files, setAside } = reopened.list();
    expect(files.map((f) => f.entry.deliveryId)).toEqual(['good']);
    expect(setAside).toEqual(['0000000000000002-000001.json']);
    expect(reopened.depth()).toBe(1);
    expect(readdirSync(dir)).toContain('0000000000000002-000001.json.bad');
  });
});
