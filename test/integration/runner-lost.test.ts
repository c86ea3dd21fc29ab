// Slow for a reason (~40 s): a composed bot, two `blitz-bot runner` processes and a 10-issue milestone on real PostgreSQL and git.
// Issue 39's lost runner: a runner process is killed with SIGKILL mid-attempt and never restarted.
// Instead of waiting out a lease, the bot's runner clock (BotOptions.runnerClock) is moved on past it,
// and the test fires the cron itself. The bot marks the runner lost (status page, registry, the run's
// dashboard), hands the attempt job it held to the other runner at once, tells a person once through
// the notify targets, and drops the jobs later sent to the dead runner's host queue (the cleanup of
// its attempt's worktree) with the reason: none is left queued for it. The milestone finishes.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { dashboardMarker } from '../../src/dashboard/render.ts';
import { remoteRunnerOf } from '../../src/queue/local-consumer.ts';
import { queueSchemaFor } from '../../src/queue/open-queue.ts';
import { hostQueue } from '../../src/queue/runner-queues.ts';
import { isAlive, killGroup } from '../../src/runner/exec.ts';
import { JsonFileAttemptLedger } from '../../src/runner/ledger.ts';
import type { AttemptRecord } from '../../src/runner/types.ts';
import { openRunnerRegistry, openRunStore } from '../../src/store/open-store.ts';
import { manualCron } from '../support/manual-cron.ts';
import { pgTestUrl } from '../support/pg.ts';
import {
  type Cleanups,
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

const LEASE = 120;
// The issue whose runner is killed mid-job: its worker takes 8 s, the others 1 s.
const SLOW = 8;
const statusToken = 'runner-lost-status-token';

/** A webhook notify target that keeps every body it is sent. */
const noticeCollector = async (cleanup: Cleanups) => {
  const bodies: { event: string; sentence: string; run: { id: string } }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
  return { bodies, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify` };
};

describe('a runner killed mid-attempt and never restarted (issue 39)', () => {
  it.runIf(!pgUp && inCi)('needs PostgreSQL under CI', () => {
    throw new Error(`CI is set but PostgreSQL is not reachable at ${pgTestUrl()}`);
  });

  it.runIf(pgUp)(
    'is marked lost, its attempt goes to the other runner at once, a person is told once, and no job stays queued for it',
    async () => {
      const schema = await schemas.create();
      const jobs = `"${queueSchemaFor(schema)}".job`;
      cleanups.push(
        async () =>
          void (await schemas.admin.query(`DROP SCHEMA IF EXISTS ${queueSchemaFor(schema)} CASCADE`)),
      );
      const db = schemas.urlFor(schema);
      const m = await milestoneWorld(cleanups);
      const notices = await noticeCollector(cleanups);
      // The bot's clock for runners: the test moves it on past the lease instead of waiting.
      let ahead = 0;
      const runnerClock = { now: () => new Date(Date.now() + ahead) };
      const cron = manualCron();
      const bot = await startReplica('bot-a', m, db, cleanups, {
        agentDelayMs: 1000,
        jobLeaseSeconds: LEASE,
        agentDelays: { [SLOW]: 8000 },
        statusToken,
        bot: {
          cron: cron.start,
          runnerClock,
          notifyTargets: {
            targets: [{ name: 'ops', type: 'webhook', events: ['warning'], url: notices.url }],
          },
        },
      });
      const runs = await openRunStore(db);
      const registry = await openRunnerRegistry(db);
      cleanups.push(
        () => runs.close(),
        () => registry.close(),
      );
      const token = async (name: string) => (await registry.createToken(name)).token;
      const hosts = {
        'host-a': startRunnerProcess(bot.url, await token('host-a')),
        'host-b': startRunnerProcess(bot.url, await token('host-b')),
      };
      pids.push(hosts['host-a'].pid, hosts['host-b'].pid);

      const forward = webhookForwarder(m, () => [bot]);
      const ledger = async (): Promise<AttemptRecord[]> => {
        const [run] = await runs.listRuns();
        return run ? runs.ledger.listByRun(run.id) : [];
      };
      const hostJobs = async (runner: string) =>
        (
          await schemas.admin.query(
            `SELECT id, state, output FROM ${jobs} WHERE name = $1 ORDER BY created_on`,
            [hostQueue(runner)],
          )
        ).rows as { id: string; state: string; output: { error?: string } | null }[];
      const state = async () =>
        JSON.stringify({
          attempts: (await ledger()).map((x) => [x.issue.number, remoteRunnerOf(x), x.outcome]),
          open: milestoneIssues.filter((n) => m.world.issue(m.repo, n)?.state !== 'closed'),
          runners: await registry.listTokens(),
          notices: notices.bodies,
          pumpErrors: pump.errors.slice(-3).map(String),
          // Where each attempt job is: a wait that is not reached says whose turn it was.
          attemptJobs: (
            await schemas.admin.query(
              `SELECT data->'issue'->>'number' AS issue, state, retry_count, output->>'holder' AS holder
                 FROM ${jobs} WHERE name LIKE 'attempt/%' ORDER BY created_on`,
            )
          ).rows,
        });
      // The pump stands in for GitHub's deliveries and the cron: every webhook the World's changes
      // would send goes to the bot, and the cron fires (lost runners are looked for on it).
      const pump = startPump(cleanups, async () => {
        await forward.pump();
        await cron.fire();
      });
      // Polls `fn` (bounded): what is awaited is the state of runner processes and the bot, seen from outside.
      const drive = <T>(what: string, fn: () => Promise<T | undefined | false>, ms = 120_000) =>
        until(what, fn, { timeoutMs: ms, detail: state });

      expect(await deliverToAll([bot], commentRequest(m, '/blitz M1'))).toEqual([202]);

      // Whichever runner works on the slow issue dies with its worker, mid-attempt.
      const lost = await drive('a runner to be working on the slow issue', async () => {
        for (const x of await ledger()) {
          if (x.issue.number !== SLOW || x.outcome || !x.runner) continue;
          const host = hosts[x.runner as keyof typeof hosts];
          const own = await new JsonFileAttemptLedger(host.records).get(x.id);
          if (own && !own.outcome && own.pid && isAlive(own.pid)) return { ...x, pid: own.pid };
        }
        return undefined;
      });
      const dead = lost.runner!;
      const survivor = dead === 'host-a' ? 'host-b' : 'host-a';
      process.kill(hosts[dead as keyof typeof hosts].pid, 'SIGKILL');
      killGroup(lost.pid, 'SIGKILL');

      await drive(
        'the killed runner to be gone',
        async () => !isAlive(hosts[dead as keyof typeof hosts].pid),
      );

      // Time passes for the bot past the lease: the survivor is heard from on the moved clock, the dead
      // one is not (a request it sent just before it died may still land: then the clock moves again).
      pump.paused = true;
      for (let moves = 0; ; moves++) {
        ahead += (LEASE + 30) * 1000;
        const movedAt = runnerClock.now().toISOString();
        await drive('the survivor to be heard from on the moved clock', async () => {
          const t = (await registry.listTokens()).find((x) => x.name === survivor);
          return (t?.lastSeenAt ?? '') >= movedAt;
        });
        const last = (await registry.listTokens()).find((x) => x.name === dead)?.lastSeenAt ?? '';
        if (Date.parse(last) < Date.parse(movedAt) - LEASE * 1000) break;
        expect(moves, 'the dead runner is heard from after its death').toBeLessThan(2);
      }
      pump.paused = false;

      await drive('the dead runner marked lost', async () =>
        (await registry.listTokens()).some((t) => t.name === dead && t.lostAt),
      );
      // Its attempt job went to the survivor at once (no lease to wait out), which starts the issue again.
      const retried = await drive('the slow issue to be worked again by the survivor', async () =>
        (await ledger()).find((x) => x.issue.number === SLOW && x.id !== lost.id && x.runner === survivor),
      );
      expect(retried.runner).toBe(survivor);

      await drive(
        'every milestone issue closed',
        async () => milestoneIssues.every((n) => m.world.issue(m.repo, n)?.state === 'closed'),
        240_000,
      );
      // The closed slow issue's cleanup went to each host that held one of its worktrees; the dead
      // host's has nobody to run it, and is dropped with the reason on a later tick.
      const dropped = await drive(
        'a job for the dead runner’s host dropped, and none left waiting',
        async () => {
          const mine = await hostJobs(dead);
          const waiting = mine.filter((j) => !['completed', 'failed', 'cancelled'].includes(j.state));
          return mine.length > 0 && waiting.length === 0 ? mine : undefined;
        },
      );
      expect(dropped.map((j) => j.output?.error)).toContainEqual(
        expect.stringContaining(`runner ${dead} stopped answering`),
      );

      // Told once, through the notify target, naming the runner and what happened to its work.
      for (let i = 0; i < 3; i++) await cron.fire();
      const told = notices.bodies.filter((b) => b.event === 'warning');
      expect(told, JSON.stringify(notices.bodies)).toHaveLength(1);
      expect(told[0]!.sentence).toContain(`Runner ${dead} has not been heard from`);
      expect(told[0]!.sentence).toContain('1 job it held went back to the queue for another runner');

      // Shown lost: the registry, the status page, the run's dashboard. The survivor is live.
      const tokens = await registry.listTokens();
      // Marked on the bot's runner clock, which the test moved on: a time, not a known one.
      expect(tokens.find((t) => t.name === dead)?.lostAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
      expect(tokens.find((t) => t.name === survivor)?.lostAt).toBeUndefined();
      const page = await (
        await fetch(`${bot.url}/`, { headers: { authorization: `Bearer ${statusToken}` } })
      ).text();
      expect(page).toContain(`data-runner="${dead}" data-state="lost"`);
      expect(page).toContain(`data-runner="${survivor}" data-state="live"`);
      // The line is kept on the run at once; the dashboard shows it with the pass that follows (asked
      // for in the background), so it is waited for, not read at one instant.
      const [run] = await runs.listRuns();
      expect(run!.progress.lostRunners?.map((l) => l.runner)).toEqual([dead]);
      const dashboard = () =>
        m.world.commentsOn(m.repo, m.trigger).find((c) => c.body.includes(dashboardMarker(run!.id)))?.body;
      await drive('the dashboard to name the lost runner', async () => {
        if (dashboard()?.includes(`runner ${dead} has not been heard from`)) return true;
        await cron.fire();
        return undefined;
      });

      // The slow issue: the lost attempt closed as an environment failure, the survivor's solved.
      const slow = (await ledger()).filter((x) => x.issue.number === SLOW);
      expect(slow.map((x) => [x.runner, x.outcome])).toEqual([
        [dead, 'environment_failure'],
        [survivor, 'solved'],
      ]);
      for (const n of milestoneIssues)
        expect(m.world.count('close', 'acme/app', n), `#${n} closed once`).toBe(1);
    },
    300_000,
  );
});
