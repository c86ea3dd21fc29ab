// A missing agent CLI (issue 18): the worker's command was not found on its host, locally or on a
// remote runner. No retry cures it, and it is nobody's attempt: the run stops BLOCKED with the tool and
// the host named (one notice, one blocker issue: the `block` action), and probes with the issue's next
// attempt after the environment backoff (capped, doubling), or at once when a person resumes the run.
// The runner checks for the tool before it makes anything, so a probe is cheap; once a probe attempt
// runs past the first wait or ends any other way, the tool is there and the kept blocker is lifted.
// Pure: `missingToolViewOf` reads the run's attempts into the planner's view, `toolBlockerActions` decides.
import { commandFor } from '../runner/tools/index.ts';
import { placeholdersOf } from '../runner/tools/placeholders.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { blockReasonOf, type HostOf, sameBlocker } from './block-cause.ts';
import { backoffSeconds, defaultEnvironmentBackoff, type EnvironmentBackoff } from './environment-park.ts';
import { attemptKey } from './issue-progress.ts';
import type { Action, MissingToolView, RunSnapshot } from './snapshot.ts';
import type { RunState } from './states.ts';

/** The attempt ended on its agent CLI missing, as its end was classified (`failureCause`), not as worded. */
const missed = (a: AttemptRecord): boolean =>
  a.outcome === 'environment_failure' && a.failureCause?.kind === 'missing_tool';

/** The command the attempt's roster entry starts (its argv[0]), from the bot's own copy of the job. */
const binaryOf = (a: AttemptRecord): string => {
  try {
    return commandFor(a.job.entry, placeholdersOf(a, a.promptPath), 'start', a.sessionId)?.argv[0] ?? a.tool;
  } catch {
    return a.tool;
  }
};

/** The bot's runner, or the remote runner the hub named (never what a remote runner wrote). */
const hostOf = (a: AttemptRecord): HostOf =>
  a.runner !== undefined ? { runner: a.runner } : a.host !== undefined ? { host: a.host } : { bot: true };

/** The blocker, typed: the same on every pass while the same tool is missing on the same host. */
const causeOf = (a: AttemptRecord): MissingToolView['cause'] => ({
  kind: 'missing_tool',
  tool: binaryOf(a),
  entry: a.rosterEntry,
  host: hostOf(a),
});

/**
 * The missing agent CLI of the run at `now`, if any (the attempts' `failureCause`): an issue
 * whose latest attempt met it, or whose probe attempt (the next one) is still within its first wait.
 * Undefined once a probe ran past that or ended otherwise. The most recent miss names the tool and host.
 */
export const missingToolViewOf = (
  at: { now: string; policy?: EnvironmentBackoff | undefined },
  attempts: readonly AttemptRecord[],
): MissingToolView | undefined => {
  const byIssue = new Map<string, AttemptRecord[]>();
  for (const a of attempts) byIssue.set(attemptKey(a), [...(byIssue.get(attemptKey(a)) ?? []), a]);
  const policy = at.policy ?? defaultEnvironmentBackoff;
  const found: MissingToolView[] = [];
  for (const [issue, list] of byIssue) {
    const latest = list[list.length - 1]!;
    const probing = latest.outcome === undefined;
    const ended = probing ? list.slice(0, -1) : list;
    let failures = 0;
    while (failures < ended.length && missed(ended[ended.length - 1 - failures]!)) failures++;
    if (failures === 0) continue;
    if (!probing && !missed(latest)) continue;
    // A probe attempt that ran a whole first wait without meeting the missing tool found it. A remote
    // attempt's startedAt is on the bot's clock too (the hub moved it by the runner's offset).
    if (probing && Date.parse(at.now) - Date.parse(latest.startedAt) >= policy.initialSeconds * 1000)
      continue;
    const last = ended[ended.length - 1]!;
    found.push({
      cause: causeOf(last),
      issue,
      failures,
      lastAt: last.endedAt ?? last.startedAt,
      probing,
      now: at.now,
      policy,
    });
  }
  return found.sort((a, b) => (a.lastAt < b.lastAt ? 1 : a.lastAt > b.lastAt ? -1 : 0))[0];
};

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
  const block: Action = { type: 'block', reason: blockReasonOf(t.cause), cause: t.cause };
  if (!sameBlocker(snap.keptBlocker?.cause, t.cause)) return [block];
  const resumed = runState !== 'blocked';
  if (t.probing) return resumed ? [block] : [];
  if (!resumed && Date.parse(t.now) < Date.parse(nextToolProbeAt(t))) return [];
  const probe = dispatches().filter((a) => a.type === 'dispatch' && a.issue === t.issue);
  return [...(resumed ? [block] : []), ...probe.slice(0, 1)];
};
