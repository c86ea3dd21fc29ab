// Notices about single issues and reviews, read off the snapshot (level-triggered, like the rest of
// the planner): an issue held because its attempts are spent is `failed`, one held because its worker
// stalled past its nudges `needs_person`. (An unclear integration review's notice is readiness.ts's:
// it goes out when the gate waits on it.) A failing budget probe is `needs_person` for the run.
// Each carries a content key (issue and attempt count, review time): the executor sends it once.
import type { RunContext } from './run-context.ts';
import type { Action } from './snapshot.ts';

const numberOf = (key: string): number => Number(key.slice(key.lastIndexOf('#') + 1));

/**
 * A budget probe that fails slows the run to one worker (plan/budget.ts) until it answers again: the
 * operator hears it once per error, since nothing stops and only they can mend the probe. (None
 * configured is their choice, said on the dashboard only.)
 */
const probeNotice = (ctx: RunContext): Action[] => {
  const unknown = ctx.snap.budget.unknown;
  if (unknown?.why !== 'failed') return [];
  return [
    {
      type: 'issue_notice',
      event: 'needs_person',
      key: `notice:budget-probe-failed:${unknown.error}`,
      message: `the budget probe failed (${unknown.error}); the run goes on one worker at a time until it answers again`,
    },
  ];
};

export const noticeActions = (ctx: RunContext): Action[] => {
  const out: Action[] = probeNotice(ctx);
  for (const [key, c] of ctx.classified.byKey) {
    const p = ctx.progress.get(key);
    if (!p || c.category !== 'held' || (c.kind !== 'gave_up' && c.kind !== 'stalled')) continue;
    const event = c.kind === 'gave_up' ? 'failed' : 'needs_person';
    const issue = numberOf(p.key);
    const n = p.attempts.length;
    const last = p.attempts[n - 1];
    const message =
      event === 'failed'
        ? `#${issue} failed after ${n} attempt${n === 1 ? '' : 's'}${last ? ` (last: ${last.entry}, ${last.outcome ?? 'no outcome'})` : ''}; it is held until a person looks`
        : `the worker on #${issue} stalled and did not recover after its nudges; a person has to look`;
    // Either way `/blitz retry #n` continues it (a new allowance); `/blitz skip #n` leaves it out.
    out.push({
      type: 'issue_notice',
      event,
      issue: p.key,
      key: `notice:${event}:${p.key}:${n}`,
      message,
      command: `/blitz retry #${issue}`,
    });
  }
  return out;
};
