// A cron starter for the composed bot (BotOptions.cron) that never fires by itself: a test fires it,
// and can tell that no tick ran between two of its observations.
import type { CronStarter, Tickable } from '../../src/compose/cron.ts';

export const manualCron = () => {
  let target: Tickable | undefined;
  let fired = 0;
  const start: CronStarter = (t) => {
    target = t;
    return {
      stop: () => {
        target = undefined;
      },
    };
  };
  return {
    start,
    /** Ticks fired so far. */
    fired: () => fired,
    async fire(): Promise<void> {
      if (!target) throw new Error('the bot has not started its cron');
      fired++;
      await target.tick();
    },
  };
};
