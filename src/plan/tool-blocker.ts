// A missing agent CLI (issue 18): the worker's command was not found on its host, locally or on a
// remote runner. No retry cures it, and it is nobody's attempt: the run stops BLOCKED with the tool and
// the host named (one notice, one blocker issue: the `block` action), and probes with the issue's next
// attempt after the environment backoff (capped, doubling), or at once when a person resumes the run.
// The runner checks for the tool before it makes anything, so a probe is cheap; once a probe attempt
// runs past the first wait or ends any other way, the tool is there and the kept blocker is lifted.
import { backoffSeconds } from './environment-park.ts';
import type { Action, RunSnapshot } from './snapshot.ts';
import type { RunState } from './states.ts';

/** When the next probe is due (ISO), after `failures` attempts in a row met the missing tool. */
export const nextToolProbeAt = (t: NonNullable<RunSnapshot['missingTool']>): string =>
  new Date(Date.parse(t.lastAt) + backoffSeconds(t.failures, t.policy) * 1000).toISOString();

/**
 * The run's actions while its agent CLI is missing, or undefined when it is not: block on it (said
 * once), wait, or send the probe attempt (one of `dispatches`, the run's dispatches as planned now). A
 * run a person resumed is blocked again and probed at once.
 */
export const toolBlockerActions = (
  runState: RunState,
  snap: RunSnapshot,
  dispatches: () => Action[],
): Action[] | undefined => {
  const t = snap.missingTool;
  if (!t || runState === 'paused') return undefined;
  const block: Action = { type: 'block', reason: t.reason };
  if (snap.keptBlocker?.reason !== t.reason) return [block];
  const resumed = runState !== 'blocked';
  if (t.probing) return resumed ? [block] : [];
  if (!resumed && Date.parse(t.now) < Date.parse(nextToolProbeAt(t))) return [];
  const probe = dispatches().filter((a) => a.type === 'dispatch' && a.issue === t.issue);
  return [...(resumed ? [block] : []), ...probe.slice(0, 1)];
};
