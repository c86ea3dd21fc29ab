// Waves: the ready set in dispatch order (priority label, then oldest, then number), capped at
// min(maxSessions, budget recommendation, machine limit). Slots refill as soon as one frees: the
// cap applies to what is running now, not to a batch.
import { fenceDecision } from './fences.ts';
import { compareKeys } from './graph.ts';
import type { IssueKey, PlanIssue } from './types.ts';

/** What the budget probe said (seed 000 §1.5). */
export interface Budget {
  /** `park`: start nothing new; let running workers finish. */
  verdict: 'ok' | 'park';
  /** null when usage is unknown: treated as one-worker pressure. */
  recommendedMaxSessions: number | null;
  preferMedium: boolean;
  /** When the provider's limit lifts, if the probe said (ISO). */
  resetAt?: string;
  /** Why usage is unknown, when the probe had no say (plan/budget.ts): the run goes one worker at a time. */
  unknown?: { why: 'absent' } | { why: 'failed'; error: string };
}

export interface Caps {
  maxSessions: number;
  budget: Budget;
  /** Machine contention limit (seed default 2). */
  machineLimit: number;
  /** The host-wide gate reports the machine contended: at most one worker. */
  contended: boolean;
}

export const defaultMachineLimit = 2;

/** How many workers may run at once under these caps. */
export const sessionCap = (caps: Caps): number => {
  if (caps.budget.verdict === 'park') return 0;
  const budget = caps.budget.recommendedMaxSessions ?? 1;
  const machine = caps.contended ? Math.min(1, caps.machineLimit) : caps.machineLimit;
  return Math.max(0, Math.floor(Math.min(caps.maxSessions, budget, machine)));
};

/** Free slots with `running` workers already on; 0 when parked, even if running < cap. */
export const slotsFree = (running: number, caps: Caps): number => Math.max(0, sessionCap(caps) - running);

const priorityPatterns: [RegExp, number][] = [
  [/^(?:priority\/critical|p0)$/i, 0],
  [/^(?:priority\/high|p1)$/i, 1],
  [/^(?:priority\/medium|p2)$/i, 2],
  [/^(?:priority\/low|p3)$/i, 3],
];
/** Unlabelled issues sort between medium and low: a low label is a deliberate demotion. */
export const unlabelledPriority = 2.5;

export const priorityOf = (issue: Pick<PlanIssue, 'labels'>): number => {
  let best = Number.POSITIVE_INFINITY;
  for (const l of issue.labels) {
    // Every pattern starts with `p` or `P`: other labels are passed over without a regex.
    if ((l.name.charCodeAt(0) | 0x20) !== 0x70) continue;
    for (const [re, rank] of priorityPatterns) if (re.test(l.name) && rank < best) best = rank;
  }
  return best === Number.POSITIVE_INFINITY ? unlabelledPriority : best;
};

/** Dispatch order: priority, then oldest createdAt, then key. */
export const compareForDispatch = (a: PlanIssue, b: PlanIssue, ka: IssueKey, kb: IssueKey): number =>
  priorityOf(a) - priorityOf(b) ||
  (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) ||
  compareKeys(ka, kb);

interface DispatchEntry {
  key: IssueKey;
  priority: number;
  createdAt: string;
}

/** compareForDispatch on entries whose priority was read once. */
const compareEntries = (a: DispatchEntry, b: DispatchEntry): number =>
  a.priority - b.priority ||
  (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) ||
  compareKeys(a.key, b.key);

const entriesOf = (issues: ReadonlyMap<IssueKey, PlanIssue>, keys: readonly IssueKey[]): DispatchEntry[] =>
  keys.map((key) => {
    const issue = issues.get(key)!;
    return { key, priority: priorityOf(issue), createdAt: issue.createdAt };
  });

/** Keys in compareForDispatch order; each issue's priority is read once, not once per comparison. */
export const orderForDispatch = (
  issues: ReadonlyMap<IssueKey, PlanIssue>,
  keys: readonly IssueKey[],
): IssueKey[] =>
  entriesOf(issues, keys)
    .sort(compareEntries)
    .map((x) => x.key);

/**
 * The same order as orderForDispatch, one key at a time off a binary heap: a wave that fills its
 * few slots from a long ready list pays for the keys it looks at, not for sorting all of them.
 */
function* dispatchOrder(
  issues: ReadonlyMap<IssueKey, PlanIssue>,
  keys: readonly IssueKey[],
): Generator<IssueKey> {
  const heap = entriesOf(issues, keys);
  const down = (from: number, size: number): void => {
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) return;
      const c = l + 1 < size && compareEntries(heap[l + 1]!, heap[l]!) < 0 ? l + 1 : l;
      if (compareEntries(heap[c]!, heap[i]!) >= 0) return;
      [heap[i], heap[c]] = [heap[c]!, heap[i]!];
      i = c;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i, heap.length);
  for (let size = heap.length; size > 0; size--) {
    const top = heap[0]!;
    heap[0] = heap[size - 1]!;
    down(0, size - 1);
    yield top.key;
  }
}

export interface WaveMember {
  key: IssueKey;
  /** Paths to fence off in this worker's prompt, with the issue that owns each. */
  fenceOff: { path: string; owner: IssueKey }[];
}

export interface WaveInput {
  issues: ReadonlyMap<IssueKey, PlanIssue>;
  ready: readonly IssueKey[];
  /** Issues a worker is on now: they take slots and their fences count. */
  running: readonly IssueKey[];
  caps: Caps;
  /** The order to consider the ready issues in; default orderForDispatch. */
  ordered?: readonly IssueKey[];
  /** Start at most this many now, whatever the free slots (a fleet's pilot ticket). */
  limit?: number;
  /** Fences per issue (see fences.ts); missing means none. */
  fences?: ReadonlyMap<IssueKey, readonly string[]>;
}

/**
 * The issues to start now: ready issues in dispatch order, skipping any that may not run together
 * with a running or already chosen issue, up to the free slots.
 */
export const nextWave = (input: WaveInput): WaveMember[] => {
  let free = Math.min(slotsFree(input.running.length, input.caps), input.limit ?? Number.POSITIVE_INFINITY);
  const chosen: WaveMember[] = [];
  const busy: IssueKey[] = [...input.running].sort(compareKeys);
  const fencesOf = (k: IssueKey): readonly string[] => input.fences?.get(k) ?? [];
  for (const k of input.ordered ?? dispatchOrder(input.issues, input.ready)) {
    if (free <= 0) break;
    const fenceOff: { path: string; owner: IssueKey }[] = [];
    let clash = false;
    for (const other of busy) {
      const d = fenceDecision(fencesOf(k), fencesOf(other));
      if (!d.together) {
        clash = true;
        break;
      }
      for (const path of d.fenceOff) fenceOff.push({ path, owner: other });
    }
    if (clash) continue;
    // A worker chosen earlier in this call has no prompt yet: fence it off from this one too.
    for (const earlier of chosen) {
      const d = fenceDecision(fencesOf(earlier.key), fencesOf(k));
      if (d.together) for (const path of d.fenceOff) earlier.fenceOff.push({ path, owner: k });
    }
    chosen.push({ key: k, fenceOff });
    busy.push(k);
    free--;
  }
  return chosen;
};
