// What a person is told about a store outage (store/store-health.ts): one `warning` notice to the
// notify targets once the outage has lasted past the threshold (BLITZ_STORE_OUTAGE_NOTIFY_SECONDS), one
// more when the store is back with how long it was down, and a line on every live run's dashboard at
// its next pass (the first that can write the forge again). The notice names the oldest live run the
// bot knew before the store went away (a store that is down cannot be asked for them: the runs are kept
// from every tick and every run change that reached it) and counts the others; with none known it
// speaks for the bot itself, as `blitz-bot notify test` does.
import type { Logger } from '../observability/logger.ts';
import type { Notifier, RunNotice } from '../ship/notice.ts';
import { notifyAll } from '../ship/notify.ts';
import { runNoticeOf } from '../ship/run-notices.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { StoreHealth, StoreOutageInfo } from '../store/store-health.ts';

type KnownRun = Pick<RunRecord, 'id' | 'kind' | 'milestoneTitle' | 'repo' | 'triggerIssue'>;

const utc = (d: Date): string => `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

const duration = (seconds: number): string =>
  seconds < 120 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;

/** The dashboard's line for the last outage this process saw, e.g. "the store was unreachable from … to … (95 s)". */
export const storeOutageLine = (o: { since: Date; until: Date }): string => {
  const seconds = Math.round((o.until.getTime() - o.since.getTime()) / 1000);
  return `the bot's store was unavailable from ${utc(o.since)} to ${utc(o.until)} (${duration(seconds)}); webhooks were kept in the spool and replayed, and the run went on where it was`;
};

export interface StoreOutageTelling {
  /** The live runs as the last tick that reached the store saw them (oldest first). */
  remember(runs: readonly KnownRun[]): void;
  /** One run seen live (a run change): kept until a tick's list no longer has it. */
  seen(run: KnownRun): void;
  knows(runId: string): boolean;
  /** The dashboard line, while the last outage is recent (its end within `dashboardForMs`). */
  dashboardLine(now: Date): string | undefined;
}

export const tellStoreOutages = (o: {
  health: StoreHealth;
  engine: string;
  notifiers: readonly Notifier[];
  logger: Logger;
  /** The run pages' base URL (PUBLIC_URL), for the link. */
  publicUrl?: string;
  /** How long the dashboard keeps the line after the outage ended (default a day). */
  dashboardForMs?: number;
}): StoreOutageTelling => {
  let known = new Map<string, KnownRun>();
  const send = async (sentence: (others: string) => string) => {
    const [first, ...rest] = known.values();
    const others =
      rest.length === 0 ? '' : ` (${rest.length} other live run${rest.length === 1 ? '' : 's'} too)`;
    const notice: RunNotice = first
      ? runNoticeOf(first, 'warning', sentence(others), {
          ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
        })
      : {
          event: 'warning',
          repo: 'blitz-bot',
          run: { id: 'store', kind: 'blitz', title: "the bot's store" },
          sentence: sentence(''),
          issuesShipped: 0,
        };
    const results = await notifyAll(o.notifiers, notice);
    for (const r of results)
      if (!r.ok) o.logger.warn({ target: r.target, error: r.error }, 'store outage notice failed');
  };
  o.health.tellWith({
    onLongOutage: (x: StoreOutageInfo) =>
      send(
        (others) =>
          `The bot's store (${o.engine}) has been unavailable for ${duration(x.seconds)}, since ${utc(x.since)}: work waits${others} and webhooks are kept in the spool; both go on by themselves when the store is back`,
      ),
    onRecovered: (x) =>
      send(
        (others) =>
          `The bot's store (${o.engine}) is back after ${duration(x.seconds)} down (${utc(x.since)} to ${utc(x.until)}); work goes on where it was${others}`,
      ),
  });
  return {
    remember(runs) {
      known = new Map(runs.map((r) => [r.id, r]));
    },
    knows: (runId) => known.has(runId),
    seen(run) {
      if (!known.has(run.id)) known.set(run.id, run);
    },
    dashboardLine(now) {
      const last = o.health.lastOutage();
      if (!last || now.getTime() - last.until.getTime() > (o.dashboardForMs ?? 86_400_000)) return undefined;
      return storeOutageLine(last);
    },
  };
};
