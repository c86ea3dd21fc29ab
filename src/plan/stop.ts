// The two actions that end a run in a named state: a notice to the people on it, then the stop.
import type { GateCause } from './gate-blocker.ts';
import type { RunContext } from './run-context.ts';
import type { Action, StopState } from './snapshot.ts';
import type { StopCause } from './stop-cause.ts';

// `notify: false` when the people were already told about this very cause (an issue's own notice);
// `command`: what continues the run when it is not `/blitz resume` (a held issue's `/blitz retry #n`);
// `gate`: the red gate that stops it, which files the run's blocker issue (plan/gate-blocker.ts);
// `cause`: what it is about, typed (plan/stop-cause.ts), the words `reason` are made from.
export const stop = (
  ctx: Pick<RunContext, 'snap'>,
  state: StopState,
  reason: string,
  cause: StopCause,
  opts: { notify?: boolean; command?: string; gate?: GateCause } = {},
): Action[] => {
  const level = state === 'done' ? 'ready' : state === 'blocked' ? 'blocked' : 'info';
  const word = state === 'done' ? 'ready' : state === 'blocked' ? 'BLOCKED' : 'paused';
  const title = `${ctx.snap.kind}: ${ctx.snap.milestoneTitle} ${word}`;
  return [
    ...(opts.notify === false ? [] : [{ type: 'notify', level, title, message: reason } as const]),
    {
      type: 'stop',
      state,
      reason,
      ...(opts.command ? { command: opts.command } : {}),
      ...(opts.gate ? { gate: opts.gate } : {}),
      cause,
    },
  ];
};
