// Remote runners that stopped being heard from. On the cron tick (one replica per slot) the runners
// unheard of for longer than the job lease are marked lost in the registry, in one guarded UPDATE that
// hands each to one caller only; that caller takes the jobs it held away from it (visible at once to
// any runner serving their queue), fails the jobs waiting on its own host queue for good with the
// reason (their worktrees are on the dead host: no other runner can run them), and tells once, when it
// held work. Jobs that reach a lost runner's host queue later (a cleanup of its attempts) are dropped
// on every later sweep. A shared attempt queue the lost runner served that no live runner (nor the
// bot's own) serves has nobody to run its jobs either: they are dropped with that reason, at the sweep
// and at every later one while it stays so. A runner heard from again (any request) is live again (hub.ts).
import type { Logger } from '../observability/logger.ts';
import { hostQueue, queuesForRunner } from '../queue/runner-queues.ts';
import type { DroppedJob, JobQueue } from '../queue/types.ts';
import type { AttemptLedger } from '../runner/types.ts';
import type { RunnerRegistry, RunnerTokenInfo } from '../store/runner-tokens.ts';

/** What a lost runner left behind, as the sweep that marked it found it. */
export interface LostRunner {
  runner: string;
  lastSeenAt: string;
  lostAt: string;
  /** Jobs it held, handed to the next claimer (or failed, past their retry limit). */
  released: DroppedJob[];
  /** Jobs waiting on its host queue, or on a shared queue no live runner serves, failed for good. */
  dropped: DroppedJob[];
  /** Its attempts still open in the ledger (closed when another runner claims their job). */
  openAttempts: string[];
  /** The runs its work belonged to, most recent attempt's first. */
  runIds: string[];
}

export interface LostRunnerDeps {
  registry: Pick<RunnerRegistry, 'markLost' | 'listTokens'>;
  queue: Pick<JobQueue, 'release' | 'drop'>;
  ledger: Pick<AttemptLedger, 'get' | 'listOpen'>;
  logger: Logger;
  /** A runner unheard of for this long is lost: the job lease, so its leases have run out by then. */
  lostAfterSeconds: number;
  /**
   * When this process began hearing from runners: none is marked lost before it has been up for
   * `lostAfterSeconds` (after the bot's own outage every runner's last request is old).
   */
  since: Date;
  /** Tells a person about a lost runner that held work; called once per lost runner. */
  tell?: (lost: LostRunner) => Promise<void>;
  /**
   * Whether the bot's own runner pulls the shared attempt queues (BLITZ_LOCAL_RUNNER is not `false`):
   * then no attempt queue is ever left without a runner.
   */
  localRunnerServesAttempts: boolean;
}

/** The reason a dropped or released job carries as its error. */
export const lostReason = (runner: string, lastSeenAt: string | undefined): string =>
  `runner ${runner} stopped answering${lastSeenAt ? ` (last heard ${lastSeenAt})` : ''} and is marked lost`;

/** The reason a job on a shared queue only lost runners served is dropped with. */
export const unservedReason = (runner: string, lastSeenAt: string | undefined, queue: string): string =>
  `${lostReason(runner, lastSeenAt)}, and no live runner serves ${queue} (its roles and repositories)`;

/** The shared (attempt) queues `runner` served that no live runner does; none when the bot's own runner serves them. */
const unservedQueues = (
  d: Pick<LostRunnerDeps, 'localRunnerServesAttempts'>,
  runner: RunnerTokenInfo,
  tokens: readonly RunnerTokenInfo[],
): string[] => {
  if (d.localRunnerServesAttempts || !runner.advert) return [];
  const served = new Set(
    tokens
      .filter((t) => !t.lostAt && !t.revokedAt && t.advert)
      .flatMap((t) => queuesForRunner(t.name, t.advert!)),
  );
  return queuesForRunner(runner.name, runner.advert).filter(
    (q) => q !== hostQueue(runner.name) && !served.has(q),
  );
};

/** Whether a lost runner left anything a person should hear about. */
export const heldWork = (l: Pick<LostRunner, 'released' | 'dropped' | 'openAttempts'>): boolean =>
  l.released.length + l.dropped.length + l.openAttempts.length > 0;

/** The run of a job's payload: an attempt job names it; a host job names the attempt it acts on. */
const runOfJob = async (d: Pick<LostRunnerDeps, 'ledger'>, job: DroppedJob): Promise<string | undefined> => {
  const p = job.payload;
  if (typeof p !== 'object' || p === null) return undefined;
  if ('runId' in p && typeof p.runId === 'string') return p.runId;
  const attemptId =
    'attemptId' in p && typeof p.attemptId === 'string'
      ? p.attemptId
      : 'attemptIds' in p && Array.isArray(p.attemptIds) && typeof p.attemptIds[0] === 'string'
        ? p.attemptIds[0]
        : undefined;
  return attemptId ? (await d.ledger.get(attemptId))?.runId : undefined;
};

/** Marks the runners lost that are, frees what they held; returns those this call marked. */
export const sweepLostRunners = async (d: LostRunnerDeps, at: Date): Promise<LostRunner[]> => {
  const lostAfterMs = d.lostAfterSeconds * 1000;
  const found: LostRunner[] = [];
  const marked = new Set<string>();
  if (at.getTime() - d.since.getTime() >= lostAfterMs) {
    const cutoff = new Date(at.getTime() - lostAfterMs).toISOString();
    for (const r of await d.registry.markLost(cutoff, at.toISOString())) {
      marked.add(r.name);
      const reason = lostReason(r.name, r.lastSeenAt);
      const host = hostQueue(r.name);
      // Its host's own jobs are released too, then dropped with the rest of that queue.
      const freed = (await d.queue.release(r.name, reason)).filter((j) => j.queue !== host);
      const dropped = await d.queue.drop(host, reason);
      // What it held on a queue nobody else serves was released above and is dropped here, named.
      for (const q of unservedQueues(d, r, await d.registry.listTokens()))
        dropped.push(...(await d.queue.drop(q, unservedReason(r.name, r.lastSeenAt, q))));
      const droppedIds = new Set(dropped.map((j) => j.id));
      const released = freed.filter((j) => !droppedIds.has(j.id));
      const open = (await d.ledger.listOpen())
        .filter((a) => a.runner === r.name)
        .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
      const runIds = new Set(open.map((a) => a.runId));
      for (const j of [...released, ...dropped]) {
        const runId = await runOfJob(d, j);
        if (runId) runIds.add(runId);
      }
      const lost: LostRunner = {
        runner: r.name,
        lastSeenAt: r.lastSeenAt ?? '',
        lostAt: r.lostAt ?? at.toISOString(),
        released,
        dropped,
        openAttempts: open.map((a) => a.id),
        runIds: [...runIds],
      };
      d.logger.warn(
        {
          runner: r.name,
          lastSeenAt: r.lastSeenAt,
          released: released.length,
          dropped: dropped.length,
          openAttempts: lost.openAttempts,
        },
        'runner lost',
      );
      found.push(lost);
      if (heldWork(lost))
        await d
          .tell?.(lost)
          .catch((err: unknown) =>
            d.logger.error({ runner: r.name, err }, 'a lost runner was not told to anyone'),
          );
    }
  }
  // Work sent to a lost runner's host since it was marked (a cleanup of its attempts) has nobody to run it.
  // So is work sent since to a shared queue that only lost runners served.
  const tokens = await d.registry.listTokens();
  for (const t of tokens) {
    if (!t.lostAt || t.revokedAt || marked.has(t.name)) continue;
    const dropped = await d.queue.drop(hostQueue(t.name), lostReason(t.name, t.lastSeenAt));
    for (const q of unservedQueues(d, t, tokens))
      dropped.push(...(await d.queue.drop(q, unservedReason(t.name, t.lastSeenAt, q))));
    if (dropped.length > 0)
      d.logger.info({ runner: t.name, dropped: dropped.length }, 'jobs for a lost runner dropped');
  }
  return found;
};
