// Slow for a reason (~30 s): a composed bot and a `blitz-bot runner` process under faketime run a 10-issue milestone on real PostgreSQL and git.
// Issue 39's clock skew: the only runner's host clock is ten minutes behind the bot's (faketime). One
// clock decides: no lease is lost to it (each issue dispatched once, no job retried), the times the
// bot keeps for the runner's attempts are on the bot's clock although the runner wrote its own, the
// runner is never taken for lost, and the status page shows its clock ten minutes behind.
import { describe, expect, it } from 'vitest';
import { queueSchemaFor } from '../../src/queue/open-queue.ts';
import { JsonFileAttemptLedger } from '../../src/runner/ledger.ts';
import type { AttemptRecord } from '../../src/runner/types.ts';
import { openRunnerRegistry, openRunStore } from '../../src/store/open-store.ts';
import { pgTestUrl } from '../support/pg.ts';
import {
  commentRequest,
  deliverToAll,
  milestoneIssues,
  milestoneWorld,
  replicaTestScope,
  startPump,
  startReplica,
  startRunnerProcess,
  webhookForwarder,
} from '../support/replicas-harness.ts';
import { until } from '../support/until.ts';

const { pgUp, inCi, schemas, cleanups, pids } = await replicaTestScope();

const statusToken = 'clock-skew-status-token';
const TEN_MINUTES = 600_000;

describe('a runner whose clock is ten minutes behind the bot’s (issue 39)', () => {
  it.runIf(!pgUp && inCi)('needs PostgreSQL under CI', () => {
    throw new Error(`CI is set but PostgreSQL is not reachable at ${pgTestUrl()}`);
  });

  it.runIf(pgUp)(
    'runs the milestone with no lease lost, keeps its times on the bot’s clock, and is shown ten minutes behind',
    async () => {
      const schema = await schemas.create();
      cleanups.push(
        async () =>
          void (await schemas.admin.query(`DROP SCHEMA IF EXISTS ${queueSchemaFor(schema)} CASCADE`)),
      );
      const db = schemas.urlFor(schema);
      const m = await milestoneWorld(cleanups);
      // A lease shorter than the offset: a runner clock read as the bot's would run every lease out.
      const bot = await startReplica('bot-a', m, db, cleanups, {
        agentDelayMs: 500,
        jobLeaseSeconds: 60,
        statusToken,
      });
      const runs = await openRunStore(db);
      const registry = await openRunnerRegistry(db);
      cleanups.push(
        () => runs.close(),
        () => registry.close(),
      );
      const host = startRunnerProcess(
        bot.url,
        (await registry.createToken('host-late')).token,
        ['blitz'],
        '-10m',
      );
      pids.push(host.pid);
      const from = new Date().toISOString();

      const forward = webhookForwarder(m, () => [bot]);
      const ledger = async (): Promise<AttemptRecord[]> => {
        const [run] = await runs.listRuns();
        return run ? runs.ledger.listByRun(run.id) : [];
      };
      // Each half on its own: a failed delivery does not hold up the bot's pass.
      startPump(cleanups, async () => {
        await forward.pump().catch(() => undefined);
        await bot.bot.orchestrator.tick().catch(() => undefined);
      });
      expect(await deliverToAll([bot], commentRequest(m, '/blitz M1'))).toEqual([202]);
      // What is awaited is the runner process and the bot, seen from outside.
      await until(
        'the milestone finished',
        () => milestoneIssues.every((n) => m.world.issue(m.repo, n)?.state === 'closed'),
        {
          timeoutMs: 240_000,
          everyMs: 200,
          detail: async () => JSON.stringify((await ledger()).map((a) => [a.issue.number, a.outcome])),
        },
      );
      const to = new Date().toISOString();

      // No lease ran out: each issue dispatched once, one attempt each, no attempt job retried.
      const [run] = await runs.listRuns();
      const rows = await runs.listRunIssues(run!.id);
      for (const n of milestoneIssues) expect(rows.find((r) => r.number === n)?.attempts, `#${n}`).toBe(1);
      const attempts = await ledger();
      expect(attempts.map((a) => a.outcome)).toEqual(milestoneIssues.map(() => 'solved'));
      const { rows: jobs } = await schemas.admin.query(
        `SELECT name, state, retry_count FROM "${queueSchemaFor(schema)}".job WHERE name LIKE 'attempt/%'`,
      );
      expect(jobs.length).toBeGreaterThanOrEqual(milestoneIssues.length);
      for (const j of jobs)
        expect(j, JSON.stringify(j)).toMatchObject({ state: 'completed', retry_count: 0 });

      // The runner wrote its own times, ten minutes back; the bot keeps them on its own clock.
      const own = new JsonFileAttemptLedger(host.records);
      for (const a of attempts) {
        expect(a.runnerClockSkewMs, a.id).toBeGreaterThan(-TEN_MINUTES - 5_000);
        expect(a.runnerClockSkewMs, a.id).toBeLessThan(-TEN_MINUTES + 5_000);
        for (const t of [a.launchedAt, a.startedAt, a.endedAt!]) {
          expect(t >= from && t <= to, `${a.id}: ${t} within ${from}…${to}`).toBe(true);
        }
        const mine = await own.get(a.id);
        expect(Date.parse(a.startedAt) - Date.parse(mine!.startedAt)).toBeGreaterThan(TEN_MINUTES - 5_000);
      }

      // Never taken for lost; shown ten minutes behind.
      const [t] = await registry.listTokens();
      expect(t?.lostAt).toBeUndefined();
      expect(t?.clockSkewMs).toBeLessThan(-TEN_MINUTES + 5_000);
      const page = await (
        await fetch(`${bot.url}/`, { headers: { authorization: `Bearer ${statusToken}` } })
      ).text();
      expect(page).toContain('data-runner="host-late" data-state="live"');
      expect(page).toMatch(
        /data-clock="off">10 min( \d+ s)? behind the bot&#39;s clock|data-clock="off">10 min( \d+ s)? behind the bot's clock/,
      );
    },
    300_000,
  );
});
