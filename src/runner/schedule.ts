// Drives supervision from a node-cron tick: exits are collected on every tick (every few seconds),
// stall checks run only every `stallCheckSeconds` (seed 001: ~90 s), since two quiet checks in a
// row are what make a stall.
import cron from 'node-cron';
import type { Clock } from './types.ts';

export interface TickTarget {
  tick(opts: { stalls?: boolean }): Promise<void>;
}

/** Whether this tick is also a stall pass; pure, so the cadence is tested without waiting. */
export const isStallPass = (
  lastStallPassMs: number | undefined,
  nowMs: number,
  stallCheckSeconds: number,
): boolean => lastStallPassMs === undefined || nowMs - lastStallPassMs >= stallCheckSeconds * 1000;

export const startSupervision = (
  target: TickTarget,
  opts: { stallCheckSeconds: number; clock: Clock; everySeconds?: number },
): { stop: () => void } => {
  const every = Math.min(59, Math.max(1, opts.everySeconds ?? 15));
  let last: number | undefined;
  const task = cron.schedule(`*/${every} * * * * *`, async () => {
    const now = opts.clock.now().getTime();
    const stalls = isStallPass(last, now, opts.stallCheckSeconds);
    if (stalls) last = now;
    await target.tick({ stalls });
  });
  return { stop: () => void task.stop() };
};
