// Which queue a runner job goes to, and which queues a runner pulls from. Attempts are shared work:
// one queue per role and repository, so a runner pulls only the repos and roles it serves. Resume,
// cancel, cleanup and gate jobs act on one host's worktrees, so they go to that host's own queue.
import { AppError } from '../errors.ts';
import type { RunnerJob } from '../runner/types.ts';

export const attemptQueue = (role: 'blitz' | 'fleet', repo: { owner: string; name: string }): string =>
  `attempt/${role}/${repo.owner}/${repo.name}`;

export const hostQueue = (runnerName: string): string => `host/${runnerName}`;

/**
 * The host-queue name of the bot's own runner on one machine: every replica there pulls it, so the
 * worktrees of a machine are served whichever of its replicas is up (runner names cannot hold `@`).
 */
export const botHostName = (machine: string): string => `bot@${machine}`;

/** The queue of a job; `host` names the runner that owns the worktrees a non-attempt job touches. */
export const queueForJob = (job: RunnerJob, host?: string): string => {
  if (job.kind === 'attempt') return attemptQueue(job.branchStyle, job.issue.repo);
  if (!host)
    throw new AppError('bad_request', `A ${job.kind} job needs the runner that holds its worktrees.`);
  return hostQueue(host);
};

/** The queues a runner pulls from: its own host queue first, then each served role × repo. */
export const queuesForRunner = (
  runnerName: string,
  advert: { roles: readonly string[]; repos: readonly string[] },
): string[] => {
  const roles = advert.roles.filter((r): r is 'blitz' | 'fleet' => r === 'blitz' || r === 'fleet');
  const shared = advert.repos.flatMap((full) => {
    const [owner, name] = full.split('/');
    return owner && name ? roles.map((role) => attemptQueue(role, { owner, name })) : [];
  });
  return [hostQueue(runnerName), ...shared];
};
