// Notices about single issues and reviews, read off the snapshot (level-triggered, like the rest of
// the planner): an issue held because its attempts are spent is `failed`, one held because its worker
// stalled past its nudges or because its per-issue cap is reached `needs_person`, and one that has
// spent 80 % of a cap and will be dispatched again gets a `warning`, as does one closed on the tracker
// while its worker ran (whoever watches the run may not be the person who closed it), and a merged one
// whose close keeps failing `needs_person`. (An unclear integration review's notice is readiness.ts's:
// it goes out when the gate waits on it.)
// Each carries a content key (issue and attempt count, or the allowance a retry started): the executor
// sends it once. A failing budget probe is `needs_person` for the run, once per error.
import { keysIn } from './classify.ts';
import { closeFailedSentence } from './close-failures.ts';
import { isModelFailure } from './routing.ts';
import { capCheckOf, issueRef, type RunContext } from './run-context.ts';
import type { Action, IssueProgress } from './snapshot.ts';
import { outcomeStateWords } from './state-words.ts';

const heldNotice = (ctx: RunContext, key: string): Action | undefined => {
  const c = ctx.classified.byKey.get(key);
  const p = ctx.progress.get(key);
  if (!p || c?.category !== 'held') return undefined;
  const ref = issueRef(p.key);
  // Either way `/blitz retry #n` continues it (a new allowance); `/blitz skip #n` leaves it out.
  const command = `/blitz retry ${ref}`;
  // Held by the run's cost cap alone: the run's one notice says so (runCapNotice).
  if (c.kind === 'capped' && capCheckOf(ctx.snap, p)?.level !== 'over' && ctx.runCap?.level === 'over')
    return undefined;
  if (c.kind === 'capped')
    return {
      type: 'issue_notice',
      event: 'needs_person',
      issue: p.key,
      key: `notice:capped:${p.key}:${p.countFrom ?? 0}`,
      message: capCheckOf(ctx.snap, p)?.sentence ?? `${ref} reached its per-issue cap and is held`,
      command,
      dashboard: 'held',
    };
  if (c.kind !== 'gave_up' && c.kind !== 'stalled') return undefined;
  const event = c.kind === 'gave_up' ? 'failed' : 'needs_person';
  const n = p.attempts.length;
  const last = p.attempts[n - 1];
  const bounces = p.bounces ?? 0;
  const attemptsWord = `${n} attempt${n === 1 ? '' : 's'}`;
  const message =
    event !== 'failed'
      ? last?.refused
        ? `the worker on ${ref} was refused commands it needed (${last.refused.join(', ')}); add them to the roster entry's allowedTools, then retry`
        : `the worker on ${ref} stalled and did not recover after its nudges; a person has to look`
      : bounces > 0
        ? `${ref} did not land after ${attemptsWord}: ${failedWords(p)}its work was bounced ${bounces} time${bounces === 1 ? '' : 's'} (a refused merge or a red build); it is held until a person looks`
        : `${ref} failed after ${attemptsWord}${last ? ` (last: ${last.entry}, ${last.outcome ? outcomeStateWords(last.outcome) : 'no outcome'})` : ''}; it is held until a person looks`;
  return {
    type: 'issue_notice',
    event,
    issue: p.key,
    key: `notice:${event}:${p.key}:${n}`,
    message,
    command,
  };
};

/** An issue about to be dispatched again with 80 % of a cap spent: said once per allowance. */
const capWarning = (ctx: RunContext, key: string): Action | undefined => {
  const p = ctx.progress.get(key);
  const cap = p && capCheckOf(ctx.snap, p);
  if (!p || cap?.level !== 'warn') return undefined;
  return {
    type: 'issue_notice',
    event: 'warning',
    issue: p.key,
    key: `notice:cap-warning:${p.key}:${p.countFrom ?? 0}`,
    message: cap.sentence,
    dashboard: 'warning',
  };
};

/**
 * The run's cost cap: a hold (needs a person) or the 80 % warning while issues are still to start, each
 * said once per allowance (a retry gives one issue's spend back, and the next crossing is said again).
 */
const runCapNotice = (ctx: RunContext): Action[] => {
  const cap = ctx.runCap;
  if (!cap || cap.level === 'ok' || (cap.level === 'over' && cap.holds === 0)) return [];
  if (cap.level === 'warn')
    return ctx.classified.counts.ready > 0
      ? [
          {
            type: 'issue_notice',
            event: 'warning',
            key: `notice:run-cost-warning:${cap.allowance}`,
            message: cap.sentence,
            dashboard: 'warning',
          },
        ]
      : [];
  return [
    {
      type: 'issue_notice',
      event: 'needs_person',
      ...(cap.retry ? { issue: cap.retry } : {}),
      key: `notice:run-cost-capped:${cap.allowance}`,
      message: cap.sentence,
      ...(cap.retry ? { command: `/blitz retry ${issueRef(cap.retry)}` } : {}),
      dashboard: 'held',
    },
  ];
};

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

/** An issue closed by hand while its worker ran: its worker is stopped (cancel_worker); said once per attempt. */
const closedByHandNotice = (ctx: RunContext, key: string): Action => {
  const ref = issueRef(key);
  return {
    type: 'issue_notice',
    event: 'warning',
    issue: key,
    key: `notice:closed-by-hand:${key}:${ctx.progress.get(key)?.attempts.length ?? 0}`,
    message: `${ref} was closed on the tracker while its worker ran; the worker was stopped and its branch kept. Reopen ${ref} to run it again`,
  };
};

/**
 * A merged issue whose close failed the bounded number of times (plan/close-failures.ts): a person is
 * told once, and the dashboard holds it with why while it stays open.
 */
const closeFailedNotice = (ctx: RunContext, key: string): Action | undefined => {
  if (ctx.progress.get(key)?.state !== 'merged') return undefined;
  const message = closeFailedSentence(issueRef(key), ctx.snap.closeFailures?.[key]);
  if (!message) return undefined;
  return {
    type: 'issue_notice',
    event: 'needs_person',
    issue: key,
    key: `notice:close-failed:${key}`,
    message,
    dashboard: 'held',
  };
};

/** `2 failed and ` when attempts failed since the person's last retry, beside the bounces. */
const failedWords = (p: Pick<IssueProgress, 'attempts' | 'countFrom'>): string => {
  const n = p.attempts.slice(p.countFrom ?? 0).filter((a) => isModelFailure(a)).length;
  return n > 0 ? `${n} failed and ` : '';
};

export const noticeActions = (ctx: RunContext): Action[] => {
  const out: Action[] = [...probeNotice(ctx), ...runCapNotice(ctx)];
  for (const key of ctx.snap.abandoned ?? []) out.push(closedByHandNotice(ctx, key));
  for (const key of Object.keys(ctx.snap.closeFailures ?? {})) {
    const closeFailed = closeFailedNotice(ctx, key);
    if (closeFailed) out.push(closeFailed);
  }
  for (const key of ctx.classified.byKey.keys()) {
    const held = heldNotice(ctx, key);
    if (held) out.push(held);
  }
  for (const key of keysIn(ctx.classified, 'ready')) {
    const warning = capWarning(ctx, key);
    if (warning) out.push(warning);
  }
  return out;
};
