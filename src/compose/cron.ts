// The orchestrator's heartbeat: a node-cron tick (default every 60 s, and once at start) that takes
// queued intents and reconciles every live run. This is how Gitea dependency changes are seen (Gitea
// sends no webhook for them) and how a missed webhook heals. A slow tick never overlaps the next one.
import cron from 'node-cron';
import type { Logger } from '../observability/logger.ts';

export interface Tickable {
  tick(): Promise<void>;
}

/** Every `seconds` (1–59: a six-field expression; 60 or more: whole minutes). */
export const cronExpression = (seconds: number): string => {
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new Error(`tick interval must be a whole number of seconds, got ${seconds}`);
  if (seconds < 60) return `*/${seconds} * * * * *`;
  const minutes = Math.max(1, Math.round(seconds / 60));
  return minutes === 1 ? '* * * * *' : `*/${minutes} * * * *`;
};

/** What starts the cron tick: startBlitzCron, or a test's scheduler that fires when the test says. */
export type CronStarter = (
  target: Tickable,
  opts: { everySeconds?: number; logger: Logger },
) => { stop: () => void };

export const startBlitzCron: CronStarter = (target, opts) => {
  let busy = false;
  const fire = async () => {
    if (busy) return;
    busy = true;
    try {
      await target.tick();
    } catch (err) {
      opts.logger.error({ err }, 'orchestrator tick failed');
    } finally {
      busy = false;
    }
  };
  const task = cron.schedule(cronExpression(opts.everySeconds ?? 60), fire);
  // One tick at start too: a restarted bot looks at its live runs now, not up to a whole interval later
  // (nothing else asks for a pass of a run whose workers are all done and whose webhooks came meanwhile).
  void fire();
  return { stop: () => void task.stop() };
};
