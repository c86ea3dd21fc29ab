// What a merge into the integration branch that the forge refused means, for every run kind (issue 37):
// a conflict goes back to the session that wrote the work, which merges the base in (never a rebase),
// resolves, runs the checks and pushes; the files that conflicted are checked for leftover markers
// before the PR is merged. Only after `maxConflictResumes` tries that did not resolve it is the work
// given up (a blitz bounce: redone from scratch off the integration branch as it is now; a fleet
// merge request withdrawn for a person). Pure: the IO steps return the outcome (`mergeRefused`), the
// executors perform the step.
import type { PullRequest } from '../forges/types.ts';

/** Times a session is resumed to merge the base into its branch before its work is given up. */
export const maxConflictResumes = 2;

/** Why the forge would not merge a PR, as a kind (never its sentence). */
export type MergeRefusal =
  /** The PR conflicts with its base (the forge shows it dirty / not mergeable). */
  | { why: 'conflict' }
  /** Its head or base moved since it was read: the next pass reads and gates it again. */
  | { why: 'moved' }
  /** Anything else the forge refused (branch protection, a closed PR): `message` is the forge's. */
  | { why: 'other'; message: string };

/**
 * The refusal's kind, from the forge's error code and the PR as read right after: a head that moved
 * (`conflict`, 409), a PR the forge shows conflicting with its base, or anything else.
 */
export const refusalOf = (
  code: 'unmergeable' | 'conflict',
  message: string,
  pr: Pick<PullRequest, 'mergeState' | 'mergeable'>,
): MergeRefusal => {
  if (code === 'conflict') return { why: 'moved' };
  if (pr.mergeState === 'dirty' || pr.mergeable === false) return { why: 'conflict' };
  return { why: 'other', message };
};

/** What a merge step did: the IO's whole answer. */
export type MergeOutcome = { kind: 'merged'; sha?: string } | { kind: 'mergeRefused'; refusal: MergeRefusal };

/** The conflict tries this pass, and the session that would take the next one. */
export interface ConflictFacts {
  /** Conflict resumes sent since the work was last started from scratch. */
  resumes: number;
  /** The session that wrote the work can be resumed (there is one). */
  session: boolean;
  /** The branch the PR merges into. */
  base: string;
}

export type ConflictStep =
  /**
   * Resume the session: the runner merges `base` into its branch first and names the files left
   * conflicted; with `files`, the base is merged already and these files still need resolving.
   */
  | { step: 'resume_conflict'; base: string; attempt: number; note: string; files?: readonly string[] }
  | { step: 'give_up'; reason: string };

/** The next conflict try, or the work given up when none is left. */
export const conflictStep = (f: ConflictFacts, why: string, files?: readonly string[]): ConflictStep => {
  if (f.session && f.resumes < maxConflictResumes)
    return {
      step: 'resume_conflict',
      base: f.base,
      attempt: f.resumes + 1,
      note: `${why}: its worker is merging \`${f.base}\` in (try ${f.resumes + 1} of ${maxConflictResumes})`,
      ...(files ? { files } : {}),
    };
  return {
    step: 'give_up',
    reason: f.session
      ? `${why}, and its worker did not resolve it in ${f.resumes} ${f.resumes === 1 ? 'try' : 'tries'}`
      : `${why}, and no worker session is left to resolve it`,
  };
};

/** After a refused merge: merge again next pass (the PR moved), or the conflict step. */
export const afterRefusedMerge = (
  r: MergeRefusal,
  f: ConflictFacts,
  pr: number,
): { step: 'again' } | ConflictStep | { step: 'give_up'; reason: string } => {
  if (r.why === 'moved') return { step: 'again' };
  if (r.why === 'other')
    return { step: 'give_up', reason: `its PR #${pr} could not be merged into ${f.base}: ${r.message}` };
  return conflictStep(f, `its PR #${pr} conflicts with ${f.base}`);
};

/**
 * How long a conflict resume may stay unstarted before it counts as a spent try: a job queued for
 * another host can be dropped, fail there, or wait for a host that is gone, and nothing else tells.
 */
export const conflictResumeLeaseMs = 30 * 60_000;

/** The last conflict resume as the row and its session show it. */
export interface ConflictResumeFacts {
  /** The session's `launchedAt` now. */
  launchedAt: string;
  /** The row's `conflictResumeAt`: the session's `launchedAt` when the resume was sent. */
  resumeAt?: string;
  /** The row's `conflictResumeSentAt`: when it was sent (absent on a row from before it was kept). */
  sentAt?: string;
  /** The pass's time (ISO). */
  now: string;
}

/**
 * The last conflict resume: started (the session relaunched since, or none sent), `pending` (queued,
 * within its lease) or `lapsed` (not started within its lease, or sent at a time not known: it counts
 * as a spent try, so the issue goes on to the next try or is given up instead of waiting forever).
 */
export const conflictResumeState = (f: ConflictResumeFacts): 'started' | 'pending' | 'lapsed' => {
  if (f.resumeAt === undefined || f.resumeAt !== f.launchedAt) return 'started';
  if (f.sentAt === undefined) return 'lapsed';
  return Date.parse(f.now) - Date.parse(f.sentAt) > conflictResumeLeaseMs ? 'lapsed' : 'pending';
};

/** `conflictResumeState` of an issue: its row's marks against its latest session's `launchedAt`. */
export const conflictResumeOf = (
  row: { conflictResumeAt?: string | undefined; conflictResumeSentAt?: string | undefined } | undefined,
  session: { launchedAt: string },
  now: string,
): 'started' | 'pending' | 'lapsed' =>
  conflictResumeState({
    launchedAt: session.launchedAt,
    ...(row?.conflictResumeAt ? { resumeAt: row.conflictResumeAt } : {}),
    ...(row?.conflictResumeSentAt ? { sentAt: row.conflictResumeSentAt } : {}),
    now,
  });

/** Why a try ended whose resume never started. */
export const resumeLapsed = `its worker's conflict resume did not start within ${conflictResumeLeaseMs / 60_000} minutes`;

/** The words for conflicted files that still hold a marker after the session said it resolved them. */
export const markersLeft = (files: readonly string[]): string =>
  `conflict markers are left in ${files.join(', ')}`;

/** What the last resolution left to check before a merge. */
export interface ResolutionFacts extends ConflictFacts {
  /**
   * The session: running (`live`), asked to resume for a conflict and not started yet (`pending`: a
   * job queued for another host, within its lease), asked and not started within it (`lapsed`: a
   * spent try), or ended.
   */
  worker: 'live' | 'pending' | 'lapsed' | 'ended';
  /** The session's last run ended solved (the supervisor found the branch pushed, markers-free). */
  solved: boolean;
  /** The files the last base merge left conflicted (empty: no conflict resume this pass). */
  conflictFiles: readonly string[];
  /** The attempt ran on another host, whose supervisor checked the pushed tree for markers at its exit. */
  remote: boolean;
  /** Read on `read markers`: of `conflictFiles`, those that still hold a marker. */
  markers?: readonly string[];
}

export type BeforeMerge = { step: 'merge' } | { step: 'wait' } | { step: 'read_markers' } | ConflictStep;

/**
 * Whether a PR may be merged as far as its conflicts go: not while its session runs or a conflict
 * resume is on its way, and, after a conflict resume, only when the session ended solved and no file
 * that conflicted still holds a marker (otherwise that try did not resolve it).
 */
export const beforeMerge = (f: ResolutionFacts): BeforeMerge => {
  if (f.worker === 'live' || f.worker === 'pending') return { step: 'wait' };
  if (f.worker === 'lapsed') return conflictStep(f, resumeLapsed);
  if (f.resumes === 0 || f.conflictFiles.length === 0) return { step: 'merge' };
  if (!f.solved) return conflictStep(f, `the conflict with ${f.base} is not resolved`);
  // A remote attempt's supervisor checked the whole pushed tree for markers before it called it solved.
  if (f.remote) return { step: 'merge' };
  if (f.markers === undefined) return { step: 'read_markers' };
  if (f.markers.length === 0) return { step: 'merge' };
  return conflictStep(f, markersLeft(f.markers), f.markers);
};
