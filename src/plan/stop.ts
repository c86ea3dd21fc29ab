// The two actions that end a run in a named state: a notice to the people on it, then the stop.
import type { RunContext } from './run-context.ts';
import type { Action, StopState } from './snapshot.ts';

export const stop = (ctx: Pick<RunContext, 'snap'>, state: StopState, reason: string): Action[] => {
  const level = state === 'done' ? 'ready' : state === 'blocked' ? 'blocked' : 'info';
  const word = state === 'done' ? 'ready' : state === 'blocked' ? 'BLOCKED' : 'paused';
  return [
    { type: 'notify', level, title: `${ctx.snap.kind}: ${ctx.snap.milestoneTitle} ${word}`, message: reason },
    { type: 'stop', state, reason },
  ];
};
