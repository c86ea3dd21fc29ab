// What the planner's missing-CLI blocker (plan/tool-blocker.ts) is decided from: the ledger's latest
// attempts of each issue, read for an agent CLI the runner could not find (runner/failure-class.ts
// `isToolMissing`). The tool is named from the bot's own copy of the job (its roster entry), never from
// what a remote runner wrote; the host is the bot's runner or the remote runner the hub named.
import { defaultEnvironmentBackoff } from '../plan/environment-park.ts';
import { attemptKey } from '../plan/issue-progress.ts';
import type { MissingToolView } from '../plan/snapshot.ts';
import { isToolMissing } from '../runner/failure-class.ts';
import { placeholdersOf } from '../runner/supervisor.ts';
import { commandFor } from '../runner/tools/index.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { Ports } from './context.ts';

const missed = (a: AttemptRecord): boolean =>
  a.outcome === 'environment_failure' && isToolMissing(a.failureSummary);

/** The command the attempt's roster entry starts (its argv[0]). */
const binaryOf = (a: AttemptRecord): string => {
  try {
    return commandFor(a.job.entry, placeholdersOf(a, a.promptPath), 'start', a.sessionId)?.argv[0] ?? a.tool;
  } catch {
    return a.tool;
  }
};

const hostOf = (a: AttemptRecord): string =>
  a.runner !== undefined ? `runner ${a.runner}` : a.host !== undefined ? `host ${a.host}` : "the bot's host";

/** The sentence of the blocker: the same on every pass while the same tool is missing on the same host. */
const reasonOf = (a: AttemptRecord): string =>
  `the agent CLI \`${binaryOf(a)}\` (roster entry ${a.rosterEntry}) is not installed on ${hostOf(a)}`;

/**
 * The missing agent CLI of the run, if any: an issue whose latest attempt met it, or whose probe attempt
 * (the next one) is still within its first wait. Undefined once a probe ran past that or ended otherwise.
 */
export const missingToolOf = (
  deps: Ports<'clock' | 'config'>,
  attempts: readonly AttemptRecord[],
): MissingToolView | undefined => {
  const byIssue = new Map<string, AttemptRecord[]>();
  for (const a of attempts) byIssue.set(attemptKey(a), [...(byIssue.get(attemptKey(a)) ?? []), a]);
  const now = deps.clock.now();
  const policy = deps.config.runner.environmentBackoff ?? defaultEnvironmentBackoff;
  const found: MissingToolView[] = [];
  for (const [issue, list] of byIssue) {
    const latest = list[list.length - 1]!;
    const probing = latest.outcome === undefined;
    const ended = probing ? list.slice(0, -1) : list;
    let failures = 0;
    while (failures < ended.length && missed(ended[ended.length - 1 - failures]!)) failures++;
    if (failures === 0) continue;
    if (!probing && !missed(latest)) continue;
    // A probe attempt that ran a whole first wait without meeting the missing tool found it.
    if (probing && now.getTime() - Date.parse(latest.startedAt) >= policy.initialSeconds * 1000) continue;
    const last = ended[ended.length - 1]!;
    found.push({
      reason: reasonOf(last),
      issue,
      failures,
      lastAt: last.endedAt ?? last.startedAt,
      probing,
      now: now.toISOString(),
      policy,
    });
  }
  // The most recent first: it names the tool and host as they are now.
  return found.sort((a, b) => (a.lastAt < b.lastAt ? 1 : a.lastAt > b.lastAt ? -1 : 0))[0];
};
