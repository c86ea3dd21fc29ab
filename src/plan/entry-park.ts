// Provider failover (issue 37): an environment failure is charged to the roster entry's endpoint (its
// tool and where it sends its requests), not to the run. That endpoint is parked with the run park's
// capped backoff (environment-park.ts); routing passes its entries over (routing.ts: sideways, then up,
// never down); when its wait is over it is probed: it may take work again, and the first attempt on it
// that ends on anything but an environment failure lifts the park, while one that meets the outage
// again parks it for twice as long. The run itself parks only when no entry can take the failed work
// (plan/park.ts). Pure: the orchestrator keeps the parks in the run's progress (`entryParks`).
import {
  afterProbe,
  type EnvironmentBackoff,
  type EnvironmentCause,
  parkOnEnvironmentFailure,
  probeDue,
  type RunPark,
} from './environment-park.ts';
import type { IssueKey } from './types.ts';

/** What names a roster entry's endpoint: its tool, provider, a custom tool's argv and its environment. */
export interface EndpointFacts {
  tool: string;
  provider?: string | undefined;
  command?: readonly string[] | undefined;
  env?: Readonly<Record<string, string | { fromEnv: string }>> | undefined;
}

/**
 * The key of an entry's endpoint. Entries that differ only in their model (the built-in defaults, two
 * claude models on one account) share it: an outage or a spent credit of one is the other's too.
 */
export const endpointOf = (e: EndpointFacts): string => {
  const env = Object.entries(e.env ?? {})
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : `\${${v.fromEnv}}`}`)
    .sort();
  return JSON.stringify([e.tool, e.provider ?? '', e.tool === 'custom' ? (e.command ?? []) : [], env]);
};

/** One endpoint's park: the run park's shape, and the names of the roster entries it was seen on. */
export type EntryPark = RunPark & { entries: string[] };

/** The run's endpoint parks, by `endpointOf`. */
export type EntryParks = Record<string, EntryPark>;

/** Endpoints waiting out their park: routing passes their entries over. A probing one takes work. */
export const waitingEndpoints = (parks: EntryParks | undefined): Set<string> =>
  new Set(
    Object.entries(parks ?? {})
      .filter(([, p]) => p.probingSince === undefined)
      .map(([k]) => k),
  );

/**
 * The endpoint's park with `fresh` folded in (all of them failures on that endpoint): a new park, the
 * same park with another interrupted attempt, or (met again while probing) a longer wait.
 */
export const foldEntryFailures = (
  at: { now: string; policy: EnvironmentBackoff },
  current: EntryPark | undefined,
  fresh: readonly EnvironmentFailureSeen[],
): EntryPark => {
  const when = new Date(at.now);
  let park: EntryPark | undefined = current;
  for (const f of fresh) {
    const failure = {
      reason: f.reason,
      ...(f.cause ? { cause: f.cause } : {}),
      at: when,
      attemptId: f.attemptId,
      ...(f.resetAt ? { resetAt: f.resetAt } : {}),
    };
    const entries = [...new Set([...(park?.entries ?? []), ...(f.entry ? [f.entry] : [])])].sort();
    if (park?.probingSince !== undefined) {
      const { probingSince: _p, kind: _k, entries: _e, ...waiting } = park;
      const next = afterProbe(waiting, { up: false, at: when }, at.policy);
      const after = next.resume ? waiting : next.park;
      park = { ...parkOnEnvironmentFailure(after, failure, at.policy), kind: 'environment', entries };
    } else {
      park = { ...parkOnEnvironmentFailure(park, failure, at.policy), kind: 'environment', entries };
    }
  }
  return park!;
};

/** An endpoint park's step this pass, if any. */
export type EntryStep =
  | { type: 'probe_entry'; endpoint: string; park: EntryPark }
  | { type: 'unpark_entry'; endpoint: string; reason: string };

/**
 * The first endpoint park (in key order) with something to do: a probing one that an attempt answered
 * lifts; a waiting one whose wait is over is probed (it takes work again, on watch). A probing one
 * that nothing answered for `idleSeconds` (no work went to it: other entries took it all) lifts too,
 * so it is not shown on watch for ever: its next attempt parks it again if the endpoint is still down.
 */
export const entryParkStep = (
  now: string,
  parks: EntryParks | undefined,
  answered: ReadonlySet<string>,
  idleSeconds = Number.POSITIVE_INFINITY,
): EntryStep | undefined => {
  for (const [endpoint, park] of Object.entries(parks ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (park.probingSince !== undefined) {
      if (answered.has(endpoint)) return { type: 'unpark_entry', endpoint, reason: 'the endpoint answers' };
      if (Date.parse(now) - Date.parse(park.probingSince) >= idleSeconds * 1000)
        return { type: 'unpark_entry', endpoint, reason: 'no attempt failed on it while on watch' };
      continue;
    }
    if (probeDue(park, new Date(now)))
      return { type: 'probe_entry', endpoint, park: { ...park, probingSince: now } };
  }
  return undefined;
};

const clock = (iso: string): string => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** The dashboard's words for one roster entry's state. */
export const entryStateWords = (park: EntryPark | undefined): string => {
  if (!park) return 'healthy';
  if (park.probingSince !== undefined)
    return `probing after ${park.reason}: it takes work again, and its next attempt says whether the endpoint is back`;
  const when = park.resetAt
    ? `the tool says it resets at ${clock(park.resetAt)}; tried again by itself after that`
    : `tried again by itself at ${clock(park.nextProbeAt)} (check ${park.failures}, waits double up to the cap)`;
  return `parked: ${park.reason}; its work goes to the other entries; ${when}`;
};

/**
 * The run's park when its ready work waits only on parked endpoints and nothing else runs: it waits for
 * the first of them to be probed (no interrupted session: its probe lifts it, and the entries' own
 * probes say whether they are back). Undefined when no endpoint is waiting.
 */
export const runParkOnEntries = (now: string, parks: EntryParks | undefined): RunPark | undefined => {
  const waiting = Object.entries(parks ?? {})
    .filter(([, p]) => p.probingSince === undefined)
    .sort(([, a], [, b]) => Date.parse(a.nextProbeAt) - Date.parse(b.nextProbeAt));
  const first = waiting[0]?.[1];
  if (!first) return undefined;
  const names = [...new Set(waiting.flatMap(([, p]) => p.entries))].sort();
  return {
    kind: 'environment',
    reason: `every roster entry that can take the ready work is parked (${first.reason}: ${names.join(', ')})`,
    ...(first.cause ? { cause: first.cause } : {}),
    since: now,
    failures: 1,
    interrupted: [],
    nextProbeAt: first.nextProbeAt,
    ...(first.resetAt ? { resetAt: first.resetAt } : {}),
    endpoints: waiting.map(([k]) => k).sort(),
  };
};

/** An environment failure of the run's latest attempt of an issue, as the runner summed it up. */
export interface EnvironmentFailureSeen {
  attemptId: string;
  /** `attemptId@endedAt`: what the park keeps in `environmentSeen` once it has folded the failure in. */
  seen: string;
  /** What failed, in words (`model endpoint unreachable`, `provider limit reached`, `agent binary missing`). */
  reason: string;
  /** What failed, as the planner matches it. */
  cause?: EnvironmentCause;
  /** When the tool said the limit lifts (ISO), if it said. */
  resetAt?: string;
  /** The issue the attempt worked on. */
  issue?: IssueKey;
  /** The roster entry it ran on, and that entry's endpoint (plan/entry-park.ts `endpointOf`). */
  entry?: string;
  endpoint?: string;
}
