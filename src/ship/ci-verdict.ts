// Whether a PR head's own CI lets it merge: a pure decision over the head's checks (normalised by the
// forge), the repo's `ci:` settings, when the head was pushed and now. The bot's own `blitz` check and
// the ignored names never count. One red check is enough for red (the worker can start fixing while the
// rest run); otherwise anything still running is pending until the timeout; a head that got no check
// is pending for settleSeconds under `auto` and then has no CI, and under `always` waits to the timeout.
import type { CheckConclusion, CheckInfo } from '../forges/types.ts';

export interface CiSettings {
  wait: 'auto' | 'always' | 'never';
  settleSeconds: number;
  timeoutMinutes: number;
  ignore: readonly string[];
}

export interface CiVerdictInput {
  checks: readonly CheckInfo[];
  ci: CiSettings;
  /** When the head was pushed (ms since epoch). */
  pushedAt: number;
  now: number;
  /** Who the bot reports as (check run app slug, status creator): its own checks are left out. */
  ownReporters: readonly string[];
  /** The bot's own check name. */
  ownCheckName?: string;
}

export type CiVerdict =
  | { kind: 'green'; passed: CheckInfo[] }
  | { kind: 'red'; failing: CheckInfo[] }
  /** Look again at `recheckAt` (ms), or at the next check event, whichever comes first. */
  | { kind: 'pending'; waitingFor: string[]; recheckAt: number }
  | { kind: 'timed_out'; waitingFor: string[] }
  /** Merge without CI: `wait: never`, or `auto` and no check appeared within settleSeconds. */
  | { kind: 'no_ci'; reason: 'never' | 'none_appeared' };

const passing = new Set<CheckConclusion>(['success', 'neutral', 'skipped']);

export const isPassing = (c: CheckInfo): boolean =>
  c.status === 'completed' && c.conclusion !== undefined && passing.has(c.conclusion);

export const isFailing = (c: CheckInfo): boolean => c.status === 'completed' && !isPassing(c);

/** `codecov/*` matches `codecov/patch`; without `*` the name must match exactly (case-insensitive). */
export const matchesIgnore = (name: string, pattern: string): boolean => {
  const rx = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'i',
  );
  return rx.test(name);
};

/** The checks that decide: not the bot's own, not ignored. */
export const relevantChecks = (input: CiVerdictInput): CheckInfo[] => {
  const own = new Set(input.ownReporters.map((r) => r.toLowerCase().replace(/\[bot\]$/, '')));
  const ownName = (input.ownCheckName ?? 'blitz').toLowerCase();
  return input.checks.filter(
    (c) =>
      !(
        c.name.toLowerCase() === ownName && own.has((c.reporter ?? '').toLowerCase().replace(/\[bot\]$/, ''))
      ) && !input.ci.ignore.some((p) => matchesIgnore(c.name, p)),
  );
};

export const ciVerdict = (input: CiVerdictInput): CiVerdict => {
  const { ci, pushedAt, now } = input;
  if (ci.wait === 'never') return { kind: 'no_ci', reason: 'never' };
  const checks = relevantChecks(input);
  const settleAt = pushedAt + ci.settleSeconds * 1000;
  const timeoutAt = pushedAt + ci.timeoutMinutes * 60_000;

  const failing = checks.filter(isFailing);
  if (failing.length > 0) return { kind: 'red', failing };

  if (checks.length === 0) {
    if (ci.wait === 'auto')
      return now >= settleAt
        ? { kind: 'no_ci', reason: 'none_appeared' }
        : { kind: 'pending', waitingFor: [], recheckAt: settleAt };
    return now >= timeoutAt
      ? { kind: 'timed_out', waitingFor: [] }
      : { kind: 'pending', waitingFor: [], recheckAt: timeoutAt };
  }

  const running = checks.filter((c) => c.status !== 'completed').map((c) => c.name);
  if (running.length > 0)
    return now >= timeoutAt
      ? { kind: 'timed_out', waitingFor: running }
      : { kind: 'pending', waitingFor: running, recheckAt: timeoutAt };
  return { kind: 'green', passed: checks };
};

/** One line for a dashboard, a check summary or a notification. */
export const describeCiVerdict = (v: CiVerdict): string => {
  switch (v.kind) {
    case 'green':
      return `CI green (${v.passed.length} check${v.passed.length === 1 ? '' : 's'})`;
    case 'red':
      return `CI red: ${v.failing.map((c) => `${c.name} (${c.conclusion ?? 'failed'})`).join(', ')}`;
    case 'pending':
      return v.waitingFor.length ? `waiting for CI: ${v.waitingFor.join(', ')}` : 'waiting for CI to start';
    case 'timed_out':
      return v.waitingFor.length
        ? `CI timed out waiting for ${v.waitingFor.join(', ')}`
        : 'CI timed out: no check appeared';
    case 'no_ci':
      return v.reason === 'never' ? 'CI not awaited (ci.wait: never)' : 'no CI on this repository';
  }
};
