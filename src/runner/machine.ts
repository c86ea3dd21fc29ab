// How many workers this host should take now (seed 000 §3.2): a contended host — load at or above
// its cores, or short of memory — takes one session at a time.
import { cpus, freemem, loadavg, totalmem } from 'node:os';

export interface MachineSample {
  loadAvg1: number;
  cores: number;
  freeMemBytes: number;
  totalMemBytes: number;
}

export interface MachineLimit {
  limit: number;
  contended: boolean;
  reason: string;
}

const GiB = 1024 ** 3;

export const machineLimit = (s: MachineSample, maxSessions: number): MachineLimit => {
  const perCore = s.loadAvg1 / Math.max(1, s.cores);
  const freeShare = s.totalMemBytes > 0 ? s.freeMemBytes / s.totalMemBytes : 0;
  const reasons: string[] = [];
  if (perCore >= 0.9) reasons.push(`load ${s.loadAvg1.toFixed(2)} on ${s.cores} cores`);
  if (s.freeMemBytes < 1.5 * GiB || freeShare < 0.1)
    reasons.push(`${(s.freeMemBytes / GiB).toFixed(1)} GiB free`);
  if (reasons.length) return { limit: 1, contended: true, reason: `contended: ${reasons.join(', ')}` };
  return { limit: Math.max(1, maxSessions), contended: false, reason: 'not contended' };
};

export const sampleMachine = (): MachineSample => ({
  loadAvg1: loadavg()[0] ?? 0,
  cores: cpus().length,
  freeMemBytes: freemem(),
  totalMemBytes: totalmem(),
});
