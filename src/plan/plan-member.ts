// One plan-wave member's way down its size lane (seed 002 §4), decided here and applied by the
// orchestrator (plan-blitz/member-steps.ts): XS → a worker, its PR shipped in the wave; S → a planner's
// short spec, `plan/ready`; M/L → the planner's plan as a draft, reviewed: APPROVED → `plan/approved`,
// BLOCKED → the planner applies the findings and the fixed plan is approved, PIVOT → a replan issue;
// no size yet → the planner sizes it first. `memberStep` decides a pass's step from what the pass read.
// An answer from the world (the PLAN.md a planner pushed, the reviewers' verdict on it, the forge's
// merge of an XS's PR or its refusal) is asked for by a step (`read_plan`, `review`, `ship`) that only
// records it on the member (`MemberAnswer`); the next pass's step decides what it means. A merged XS
// is decided from its recorded answer before the tracker's state: the forge may close a 'Resolves #n'
// issue itself, and the merge, not a person, closed it. The merge under way is recorded before it is
// asked for, so a bot that stopped before recording its answer reads the PR: merged → shipped. A step that starts a worker takes a free slot.
import { backoffSeconds, defaultEnvironmentBackoff } from './environment-park.ts';
import { conflictStep, resumeLapsed } from './merge-conflict.ts';
import { needsReview, parsePlanSize, planRunLabels, type Size, sizeLabel } from './plan-labels.ts';
import type { AttemptOutcome } from './routing.ts';
import { outcomeStateWords } from './state-words.ts';
import { type IssueKey, issueRef } from './types.ts';

export type MemberPhase = 'sizing' | 'planning' | 'fixing' | 'coding';
const phases: readonly string[] = ['sizing', 'planning', 'fixing', 'coding'] satisfies MemberPhase[];

export type Landing = 'approved' | 'ready' | 'closed' | 'pivoted' | 'refused' | 'parked';

/**
 * A member's attempts that end on an environment failure (the model endpoint down, a spend limit, a
 * runner that could not start it) are not the issue's fault: the member waits out a backoff (as a blitz
 * run's park does, plan/environment-park.ts) and its worker is started again, at most this many times
 * in a row; then it lands `parked`, and a person is told what continues it.
 */
export const maxEnvironmentTries = 3;
export type PlanStatus = 'spec' | 'draft' | 'approved' | 'fixing' | 'pivot' | 'refused';

/** How a member landed in its wave: the lane it went down, and why, in words. */
export interface MemberLanding {
  landing: Landing;
  size?: Size;
  note?: string;
  /** A merged XS: the merge commit, when the forge named it. */
  mergeSha?: string;
}

/** One reviewer's word on a plan (the findings are sanitised model text). */
export interface PlanReview {
  reviewer: string;
  verdict: 'approved' | 'blocked' | 'pivot';
  findings: string;
}

/** The reviewers' answer on a plan, as the review leg gave it. */
export interface PlanReviewAnswer {
  verdict: PlanReview['verdict'] | 'unclear' | 'no_review';
  reviews: PlanReview[];
  /** One line per reviewer that failed. */
  failures: string[];
}

/** An XS's PR the forge merged (`ship`): its number, the merge commit if the forge named it. */
export interface ShipAnswer {
  pr: number;
  sha?: string;
  /** False: no review leg is wired, so the PR merged unreviewed. */
  reviewed: boolean;
}

/**
 * What the world answered a member's step, recorded on the member until it lands: the PLAN.md the
 * attempt pushed (absent: none was), read by `read_plan`, the reviewers' answer on it (`review`), and
 * the forge's merge of an XS's PR or its refusal (`ship`).
 */
export interface MemberAnswer {
  attempt: string;
  /** The roster entry that wrote the plan (an XS's ship: its worker). */
  planner: string;
  plan?: string;
  review?: PlanReviewAnswer;
  /** XS: the forge merged the worker's PR (`ship`). */
  shipped?: ShipAnswer;
  /**
   * XS: the forge refused to merge the worker's PR, and why (`ship`); `conflict`: it conflicts with the
   * default branch, which goes back to the worker's session (plan/merge-conflict.ts).
   */
  shipRefused?: { pr: number; reason: string; conflict?: boolean };
  /**
   * XS: a merge of this PR is under way, recorded before the merge is asked for: a bot that stops before
   * it records the merge's answer reads the PR on the next pass (`MemberFacts.merge`) instead of taking
   * the issue the merge closed for one a person closed.
   */
  merging?: { pr: number; reviewed: boolean };
}

/** The PR a merge under way names, as the pass read it from the forge. */
export interface MergeRead {
  pr: number;
  merged: boolean;
  /** The merge commit, when the forge names it. */
  sha?: string;
}

/** A plan read and who wrote it: what a plan comment, a review and a pivot show. */
interface PlanText {
  plan: string;
  planner: string;
}

/** What a member's step does, in order; `attempt` names the attempt whose branch or result it uses. */
export type MemberOp =
  | { op: 'land'; outcome: MemberLanding }
  | { op: 'add_labels'; labels: string[] }
  | { op: 'remove_label'; label: string }
  /** The plan comment, with the plan as it was read. */
  | ({ op: 'comment'; status: PlanStatus; size: Size; reviews?: PlanReview[]; note?: string } & PlanText)
  /** Into a phase: attempts before now no longer count for it; `feedback` is kept for its worker. */
  | { op: 'enter'; phase: MemberPhase | 'reviewing' | 'shipping'; feedback?: string }
  /** A worker (coding) or a planner for the phase, through the queue. */
  | { op: 'attempt'; phase: MemberPhase }
  /** Read the PLAN.md the attempt pushed and record it (`MemberAnswer`); the next pass decides. */
  | { op: 'read_plan'; attempt: string }
  /** The plan the attempt pushed goes to its reviewers; their answer is recorded, the next pass decides. */
  | { op: 'review'; size: Size; attempt: string; plan: string }
  /** XS: the worker's branch becomes a PR into the default branch, reviewed and merged; the merge (or the
   * forge's refusal) is recorded, the next pass decides. */
  | { op: 'ship'; attempt: string }
  /**
   * XS whose PR conflicts: its worker's session is resumed with the default branch merged in, to resolve,
   * test and commit; `try` of `maxConflictResumes` is counted on its row, and the refusal is forgotten.
   */
  | { op: 'resume_conflict'; attempt: string; try: number }
  /** XS merged: the issue closes (if still open) with a comment naming the PR and its merge commit. */
  | { op: 'close'; pr: number; sha?: string }
  /** XS merged: the attempt's worktree and the PR's branch go, as after a blitz merge. */
  | { op: 'clean_up'; attempt: string; pr: number }
  /** A message to the people on the run (its trigger issue) and the command that continues, once per `key`. */
  | { op: 'notify'; key: string; message: string; command: string }
  /** PIVOT: a replan issue filed (or found) and linked as a blocker; the member lands pivoted. */
  | ({ op: 'pivot'; size: Size; reviews: PlanReview[] } & PlanText);

/** What the pass read about one member of the wave in flight. */
export interface MemberFacts {
  key: IssueKey;
  /** False: the issue is no longer open in the milestone. */
  open: boolean;
  size?: Size;
  /** Its row's state: a phase, `reviewing` or `shipping`; anything else has not begun. */
  state: string;
  /** The planner's execution gate: every blocker closed. */
  executionOpen: boolean;
  /** The attempts of its current phase (recorded after the phase began), in ledger order. */
  attempts: {
    id: string;
    outcome?: AttemptOutcome;
    retry: number;
    failureSummary?: string;
    endedAt?: string;
  }[];
  /** The pass's time (ISO): an environment failure's backoff is waited out against it. */
  now?: string;
  /** Dispatches the run counted for the issue, and the first tries the ledger holds of them. */
  dispatches: number;
  firstTries: number;
  /** The reviewers' findings that sent its plan back (kept on its row while it is fixing). */
  findings?: string;
  /** The world's last answer to its steps (counts only for the attempt it names). */
  answer?: MemberAnswer;
  /** The PR of a merge under way (`answer.merging`), read this pass. */
  merge?: MergeRead;
  /**
   * XS: conflict resumes sent to its worker's session (its row), and the last one when it has not
   * started: queued within its lease, or lapsed (plan/merge-conflict.ts `conflictResumeState`).
   */
  conflictResumes?: number;
  conflictResume?: 'pending' | 'lapsed';
}

/** What the orchestrator reads of a member; the planner adds its execution gate. */
export type MemberRead = Omit<MemberFacts, 'executionOpen'>;

/** Whether the runner gives up on an attempt: not solved, and not an unsolved one it retries itself. */
const failed = (a: MemberFacts['attempts'][number], runnerRetries: number): boolean =>
  a.outcome !== undefined && a.outcome !== 'solved' && !(a.outcome === 'unsolved' && a.retry < runnerRetries);

const refuse = (note: string, size?: Size): MemberOp[] => [
  { op: 'land', outcome: { landing: 'refused', ...(size ? { size } : {}), note } },
];

/** XS whose PR the forge would not merge: a person has to look at it. */
const shipRefused = (r: { pr: number; reason: string }): MemberOp[] =>
  refuse(`its PR #${r.pr} could not be merged: ${r.reason}`, 'XS');

/** XS whose PR conflicts with its base: back to its worker's session, or, out of tries, refused for a person. */
const xsConflict = (m: MemberFacts, attempt: string, why: string): MemberOp[] => {
  const c = conflictStep({ resumes: m.conflictResumes ?? 0, session: true, base: 'the default branch' }, why);
  return c.step === 'resume_conflict'
    ? [{ op: 'resume_conflict', attempt, try: c.attempt }]
    : refuse(c.reason, 'XS');
};

/** XS whose PR merged: closed (unless the forge or a person did), cleaned up, landed with its merge. */
const shipped = (attempt: string, s: ShipAnswer): MemberOp[] => [
  { op: 'close', pr: s.pr, ...(s.sha ? { sha: s.sha } : {}) },
  { op: 'clean_up', attempt, pr: s.pr },
  {
    op: 'land',
    outcome: {
      landing: 'closed',
      size: 'XS',
      ...(s.sha ? { mergeSha: s.sha } : {}),
      ...(s.reviewed ? {} : { note: 'merged without a review leg: no review module is wired' }),
    },
  },
];

/** XS whose blockers are not all closed: it needs no plan, so it is marked ready for a later /blitz. */
const readyXs = (): MemberOp[] => [
  { op: 'add_labels', labels: [planRunLabels.ready] },
  {
    op: 'land',
    outcome: {
      landing: 'ready',
      size: 'XS',
      note: 'needs no plan; its blockers are not all closed yet, so /blitz ships it later',
    },
  },
];

/** An approved plan: the comment says so, `plan/approved` replaces `plan/draft`. */
const approve = (size: Size, reviews: PlanReview[], text: PlanText): MemberOp[] => [
  { op: 'comment', status: 'approved', size, reviews, ...text },
  { op: 'add_labels', labels: [planRunLabels.approved] },
  { op: 'remove_label', label: planRunLabels.draft },
  { op: 'land', outcome: { landing: 'approved', size } },
];

/** What a pushed plan means for the member (no plan: none was pushed). */
const afterPlan = (m: MemberFacts, answer: MemberAnswer): MemberOp[] => {
  const { plan, planner } = answer;
  if (plan === undefined) return refuse('the planner pushed no PLAN.md');
  const text = { plan, planner };
  const out: MemberOp[] = [];
  let size = m.size;
  if (m.state === 'sizing') {
    const said = parsePlanSize(plan);
    if (!said) return refuse('the planner did not give the issue a size');
    out.push({ op: 'add_labels', labels: [sizeLabel(said)] });
    size = said;
    if (said === 'XS')
      return [...out, ...(m.executionOpen ? [{ op: 'enter', phase: 'coding' } as const] : readyXs())];
  }
  if (!size) return refuse('the issue has no size');
  if (m.state === 'fixing')
    return approve(
      size,
      [{ reviewer: 'the reviewers', verdict: 'blocked', findings: m.findings ?? '' }],
      text,
    );
  if (!needsReview(size))
    return [
      ...out,
      { op: 'comment', status: 'spec', size, ...text },
      { op: 'add_labels', labels: [planRunLabels.draft, planRunLabels.ready] },
      { op: 'land', outcome: { landing: 'ready', size } },
    ];
  return [
    ...out,
    { op: 'comment', status: 'draft', size, ...text },
    { op: 'add_labels', labels: [planRunLabels.draft] },
    { op: 'enter', phase: 'reviewing' },
    { op: 'review', size, attempt: answer.attempt, plan },
  ];
};

/** What the reviewers' answer on a plan means: approved, a pivot, the findings to apply, or a refusal. */
const afterReview = (size: Size, r: PlanReviewAnswer, text: PlanText): MemberOp[] => {
  if (r.verdict === 'approved') return approve(size, r.reviews, text);
  if (r.verdict === 'pivot') return [{ op: 'pivot', size, reviews: r.reviews, ...text }];
  if (r.verdict === 'blocked') {
    const findings = r.reviews
      .filter((x) => x.verdict === 'blocked')
      .map((x) => x.findings)
      .join('\n');
    return [
      { op: 'comment', status: 'fixing', size, reviews: r.reviews, ...text },
      { op: 'enter', phase: 'fixing', feedback: findings },
    ];
  }
  const note =
    r.verdict === 'unclear'
      ? 'the reviewers answered without a verdict'
      : `no reviewer could review it (${r.failures.join('; ') || 'none configured'})`;
  return [{ op: 'comment', status: 'refused', size, note, ...text }, ...refuse(note, size)];
};

/** A plan under review: read it (again), ask the reviewers, or decide on their answer. */
const underReview = (m: MemberFacts, answer: MemberAnswer): MemberOp[] => {
  const { plan, planner } = answer;
  // The size a sizing planner gave, should its label not be read back yet.
  const size = m.size ?? (plan === undefined ? undefined : parsePlanSize(plan));
  if (plan === undefined || !size) return refuse('the plan to review is gone');
  if (answer.review) return afterReview(size, answer.review, { plan, planner });
  return [{ op: 'review', size, attempt: answer.attempt, plan }];
};

/**
 * The merge of an XS's PR, as recorded or (a bot that stopped between the merge and its record) as the
 * forge shows the PR of the merge under way; undefined while it is not merged.
 */
const mergeOf = (recorded: MemberAnswer, read: MergeRead | undefined): ShipAnswer | undefined => {
  if (recorded.shipped) return recorded.shipped;
  const underWay = recorded.shipRefused ? undefined : recorded.merging;
  if (!underWay || read?.pr !== underWay.pr || !read.merged) return undefined;
  return { pr: underWay.pr, ...(read.sha ? { sha: read.sha } : {}), reviewed: underWay.reviewed };
};

/** The member's answer for this attempt, if the world gave one. */
const answerFor = (m: MemberFacts, attempt: string): MemberAnswer | undefined =>
  m.answer?.attempt === attempt ? m.answer : undefined;

/**
 * The member's step this pass; empty while it waits (a worker running, a dispatch not yet started, or
 * no slot free). `slots`: workers this step may still start (the caller counts down over the wave).
 */
export const memberStep = (m: MemberFacts, slots: number, runnerRetries: number): MemberOp[] => {
  const solved = m.attempts.filter((a) => a.outcome === 'solved').at(-1);
  const recorded = solved && answerFor(m, solved.id);
  // Before the tracker's state: a merged XS's issue may already be closed, by the merge itself.
  const merge = m.state === 'shipping' && recorded ? mergeOf(recorded, m.merge) : undefined;
  if (solved && merge) return shipped(solved.id, merge);
  if (!m.open)
    return [{ op: 'land', outcome: { landing: 'closed', note: 'closed on the tracker during the wave' } }];
  if (m.state === 'reviewing' || m.state === 'shipping') {
    const latest = m.attempts.at(-1);
    // An XS worker resolving a conflict: its session runs, or its resume has not started yet.
    if (m.state === 'shipping' && latest && (latest.outcome === undefined || m.conflictResume === 'pending'))
      return [];
    // A resume that never started is a spent try: the next one, or refused for a person.
    if (m.state === 'shipping' && latest && m.conflictResume === 'lapsed')
      return xsConflict(m, latest.id, resumeLapsed);
    if (!solved)
      return m.state === 'shipping' && latest && (m.conflictResumes ?? 0) > 0
        ? xsConflict(m, latest.id, 'the conflict with the default branch is not resolved')
        : refuse('its worker result was lost');
    if (m.state === 'shipping') {
      const r = recorded?.shipRefused;
      if (r?.conflict) return xsConflict(m, solved.id, r.reason);
      return r ? shipRefused(r) : [{ op: 'ship', attempt: solved.id }];
    }
    return recorded ? underReview(m, recorded) : [{ op: 'read_plan', attempt: solved.id }];
  }
  if (!phases.includes(m.state)) {
    if (m.size === 'XS' && !m.executionOpen) return readyXs();
    if (slots <= 0) return [];
    const phase: MemberPhase = m.size === undefined ? 'sizing' : m.size === 'XS' ? 'coding' : 'planning';
    return [
      { op: 'enter', phase },
      { op: 'attempt', phase },
    ];
  }
  const phase = m.state as MemberPhase;
  const latest = m.attempts.at(-1);
  if (!latest) return m.dispatches > m.firstTries || slots <= 0 ? [] : [{ op: 'attempt', phase }];
  if (latest.outcome === undefined) return [];
  if (latest.outcome === 'environment_failure') return afterEnvironmentFailure(m, phase, slots);
  if (failed(latest, runnerRetries)) {
    const why = latest.failureSummary ? `: ${latest.failureSummary.slice(0, 200)}` : '';
    return refuse(
      `its ${phase === 'coding' ? 'worker' : 'planner'} finished ${outcomeStateWords(latest.outcome)}${why}`,
      m.size,
    );
  }
  if (latest.outcome !== 'solved') return [];
  if (phase === 'coding')
    return [
      { op: 'enter', phase: 'shipping' },
      { op: 'ship', attempt: latest.id },
    ];
  const answer = answerFor(m, latest.id);
  return answer ? afterPlan(m, answer) : [{ op: 'read_plan', attempt: latest.id }];
};

/** When the member's worker may start again after `tries` environment failures in a row (ISO). */
export const environmentRetryAt = (endedAt: string | undefined, tries: number): string | undefined => {
  const ended = endedAt === undefined ? Number.NaN : Date.parse(endedAt);
  if (Number.isNaN(ended)) return undefined;
  return new Date(ended + backoffSeconds(tries, defaultEnvironmentBackoff) * 1000).toISOString();
};

const trailingEnvironmentFailures = (attempts: MemberFacts['attempts']): number => {
  let n = 0;
  for (let i = attempts.length - 1; i >= 0 && attempts[i]!.outcome === 'environment_failure'; i--) n++;
  return n;
};

/**
 * The named state of a member waiting out an environment backoff, for its dashboard line; undefined
 * when it is not waiting on one (its next step then says what it does).
 */
export const environmentWait = (m: Pick<MemberFacts, 'attempts' | 'state'>): string | undefined => {
  const last = m.attempts.at(-1);
  const tries = trailingEnvironmentFailures(m.attempts);
  if (!last || tries === 0 || tries >= maxEnvironmentTries || !phases.includes(m.state)) return undefined;
  const at = environmentRetryAt(last.endedAt, tries);
  const when = at ? ` at ${at.slice(0, 16).replace('T', ' ')} UTC` : '';
  return `waiting: environment failure ${tries} of ${maxEnvironmentTries} in a row; starts again${when}`;
};

/**
 * The latest attempt of the phase ended on an environment failure: start the worker again once its
 * backoff is over (a dispatch already queued is waited for), or, after `maxEnvironmentTries` in a row,
 * land `parked` and tell the people on the run what continues it.
 */
const afterEnvironmentFailure = (m: MemberFacts, phase: MemberPhase, slots: number): MemberOp[] => {
  const last = m.attempts.at(-1)!;
  const tries = trailingEnvironmentFailures(m.attempts);
  if (tries >= maxEnvironmentTries) {
    const ref = issueRef(m.key);
    const who = phase === 'coding' ? 'worker' : 'planner';
    const why = last.failureSummary ? ` (last: ${last.failureSummary.slice(0, 200)})` : '';
    const command = `/plan-blitz ${ref}`;
    const note = `parked: its ${who} hit an environment failure ${tries} times in a row${why}; once the environment is back, ${command} plans it again`;
    return [
      { op: 'notify', key: `plan-parked:${m.key}:${last.id}`, message: `${ref} is ${note}`, command },
      { op: 'land', outcome: { landing: 'parked', ...(m.size ? { size: m.size } : {}), note } },
    ];
  }
  if (m.dispatches > m.firstTries) return [];
  const due = environmentRetryAt(last.endedAt, tries);
  if (slots <= 0 || (due !== undefined && m.now !== undefined && m.now < due)) return [];
  return [{ op: 'attempt', phase }];
};

/** Starts a worker: the ops that take a slot. */
export const takesSlot = (ops: readonly MemberOp[]): boolean => ops.some((o) => o.op === 'attempt');
