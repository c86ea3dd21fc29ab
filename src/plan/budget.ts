// The budget probe's answer as the planner reads it (seed 000 §1.5): a probe that answered sets the
// session cap and may park the run; one that failed or is not configured leaves usage unknown, and
// unknown usage is one-worker pressure. The orchestrator runs the probe and hands the answer here.
import type { Budget } from './wave.ts';

export type ProbeAnswer =
  | {
      status: 'ok';
      recommendedMaxSessions: number;
      preferMedium: boolean;
      park: boolean;
      /** When the provider's limit lifts, if the probe said (ISO). */
      resetAt?: string;
    }
  | { status: 'absent' }
  | { status: 'failed'; error: string };

/** The cap a run plans on: the probe's word, else one worker until it answers (`undefined`: not asked yet). */
export const budgetOf = (probe: ProbeAnswer | undefined, maxSessions: number): Budget => {
  if (probe?.status === 'ok')
    return {
      verdict: probe.park ? 'park' : 'ok',
      recommendedMaxSessions: probe.recommendedMaxSessions,
      preferMedium: probe.preferMedium,
      ...(probe.resetAt ? { resetAt: probe.resetAt } : {}),
    };
  return {
    verdict: 'ok',
    recommendedMaxSessions: Math.min(1, maxSessions),
    preferMedium: false,
    unknown: probe?.status === 'failed' ? { why: 'failed', error: probe.error } : { why: 'absent' },
  };
};
