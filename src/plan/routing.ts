// Model routing (seed 001): which roster entry runs an issue, and which reviews it. Cheapest
// capable entry first; alternate within a tier; after a failure try an untried peer in the same
// tier before going up; never go below a tier this issue already reached; an operator override wins.
// An entry whose endpoint is parked (plan/entry-park.ts) is passed over: sideways, then up, never down.
import { endpointOf } from './entry-park.ts';
import type { Tier } from './tier.ts';
import { higherTier, tierRank, tiers } from './tier.ts';

export const tools = ['claude', 'codex', 'opencode', 'gemini', 'qwen', 'aider', 'ollama', 'custom'] as const;
export type Tool = (typeof tools)[number];
export const roles = ['blitz', 'fleet', 'plan', 'review'] as const;
export type Role = (typeof roles)[number];

/** One entry of the operator's roster (blitz.config.yml uses exactly these field names). */
export interface RosterEntry {
  name: string;
  tool: Tool;
  model?: string;
  provider?: string;
  roles: Role[];
  tiers: Tier[];
  /** Lower is cheaper. */
  costRank: number;
  effort?: 'medium' | 'high';
  /** A `custom` tool's argv template: part of what names the entry's endpoint (entry-park.ts). */
  command?: string[];
  /** The worker's extra environment (a base URL, which key): part of what names its endpoint. */
  env?: Record<string, string | { fromEnv: string }>;
}

export type AttemptOutcome = 'solved' | 'unsolved' | 'environment_failure' | 'stalled' | 'cancelled';

/** A finished or running attempt on this issue; `outcome` absent while it runs. */
export interface AttemptRecord {
  entry: string;
  tier: Tier;
  outcome?: AttemptOutcome;
  /**
   * The tool refused commands the worker needed (claude's permission denials) and the attempt ended
   * for it: a person has to widen the allowlist; the model is not to blame. The rules to add.
   */
  refused?: string[];
}

/** What previous runs learned, per entry name (the model notes), kept to what changes routing. */
export type ModelNotes = Record<string, { avoidTiers?: Tier[] }>;

export interface Override {
  tool?: Tool;
  model?: string;
}

export interface PickInput {
  role: Role;
  assessedTier: Tier;
  roster: readonly RosterEntry[];
  /** This issue's attempts, oldest first. */
  attempts: readonly AttemptRecord[];
  /** Dispatches so far in this run, per entry name: drives alternation. */
  usage?: Readonly<Record<string, number>>;
  override?: Override;
  preferMedium?: boolean;
  notes?: ModelNotes;
  /** Endpoints (`endpointOf`) parked for an environment failure: their entries take no work now. */
  parked?: ReadonlySet<string>;
}

export interface Pick {
  entry: RosterEntry;
  tier: Tier;
  reason: string;
  /** True when the entry came from the built-in defaults because the roster had none. */
  fallback: boolean;
  /** True when every candidate up to the top tier has already failed on this issue. */
  exhausted: boolean;
  /**
   * True when every entry that could take the issue (at its tier or above) is on a parked endpoint:
   * `entry` is the one it would take, and nothing is dispatched until a park lifts.
   */
  parked?: boolean;
}

/** Seed 001's defaults when the roster has nothing for a tier. */
export const defaultEntries: Record<Tier, RosterEntry> = {
  execution: {
    name: 'default-sonnet',
    tool: 'claude',
    model: 'sonnet',
    roles: [...roles],
    tiers: ['execution'],
    costRank: 1,
  },
  design: {
    name: 'default-opus',
    tool: 'claude',
    model: 'opus',
    roles: [...roles],
    tiers: ['design'],
    costRank: 2,
  },
  subtle: {
    name: 'default-fable',
    tool: 'claude',
    model: 'fable',
    roles: [...roles],
    tiers: ['subtle'],
    costRank: 3,
  },
};

/**
 * Attempts that count against a model; an environment failure, a cancel, or a stop because the tool
 * refused a command the worker needed (a person's allowlist) is not its fault.
 */
export const isModelFailure = (a: { outcome?: AttemptOutcome; refused?: string[] } | undefined): boolean =>
  a !== undefined && !a.refused && (a.outcome === 'unsolved' || a.outcome === 'stalled');

const byCost = (a: RosterEntry, b: RosterEntry): number =>
  a.costRank - b.costRank || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

const candidates = (input: PickInput, tier: Tier): { list: RosterEntry[]; fallback: boolean } => {
  let list = input.roster.filter(
    (e) =>
      e.roles.includes(input.role) &&
      e.tiers.includes(tier) &&
      !input.notes?.[e.name]?.avoidTiers?.includes(tier),
  );
  if (input.preferMedium && list.some((e) => e.effort !== 'high'))
    list = list.filter((e) => e.effort !== 'high');
  if (list.length === 0) return { list: [defaultEntries[tier]], fallback: true };
  return { list: list.sort(byCost), fallback: false };
};

const describe = (e: RosterEntry): string => `${e.name} (${e.tool}${e.model ? ` --model ${e.model}` : ''})`;

const pickOverride = (input: PickInput, o: Override): Pick => {
  const match = input.roster
    .filter((e) => e.roles.includes(input.role))
    .filter(
      (e) => (o.tool === undefined || e.tool === o.tool) && (o.model === undefined || e.model === o.model),
    )
    .sort(byCost)[0];
  const entry: RosterEntry = match ?? {
    name: `override-${o.tool ?? 'claude'}${o.model ? `-${o.model}` : ''}`,
    tool: o.tool ?? 'claude',
    ...(o.model === undefined ? {} : { model: o.model }),
    roles: [input.role],
    tiers: [...tiers],
    costRank: 0,
  };
  return {
    entry,
    tier: input.assessedTier,
    reason: `operator override: ${describe(entry)}`,
    fallback: false,
    exhausted: false,
  };
};

export const pickWorker = (input: PickInput): Pick => {
  if (input.override && (input.override.tool !== undefined || input.override.model !== undefined))
    return pickOverride(input, input.override);
  let floor = input.assessedTier;
  for (const a of input.attempts) floor = higherTier(floor, a.tier);
  const failed = new Set(input.attempts.filter((a) => isModelFailure(a)).map((a) => a.entry));
  const usage = input.usage ?? {};
  const lastFailed = isModelFailure(input.attempts[input.attempts.length - 1]);
  const open = (e: RosterEntry): boolean => !input.parked?.has(endpointOf(e));
  // A tier reached only because the entries below are parked takes the operator's entries, never a
  // built-in default the roster did not ask for.
  let parkedBelow = false;
  const openOf = (tier: Tier): { list: RosterEntry[]; fallback: boolean } => {
    const { list, fallback } = candidates(input, tier);
    const usable = fallback && parkedBelow ? [] : list.filter(open);
    if (!list.some(open)) parkedBelow = true;
    return { list: usable, fallback };
  };

  for (let t = tierRank(floor); t < tiers.length; t++) {
    const tier = tiers[t]!;
    const { list, fallback } = openOf(tier);
    const untried = list.filter((e) => !failed.has(e.name));
    if (untried.length === 0) continue;
    const why = fallback ? `roster has no ${input.role} entry for tier ${tier}; built-in default ` : '';
    const parkedWhy =
      tier !== floor && parkedBelow && !lastFailed
        ? `up to ${tier}: the ${floor} entries' endpoints are parked; `
        : '';
    if (lastFailed) {
      const entry = untried[0]!;
      const how =
        tier === floor ? 'sideways to an untried peer' : `up to ${tier}: every ${floor} entry failed`;
      return {
        entry,
        tier,
        reason: `${why}escalated ${how}: ${describe(entry)}`,
        fallback,
        exhausted: false,
      };
    }
    // Alternate: the least used entry of the tier, cheapest among equals, so a bad run shows early.
    const entry = [...untried].sort(
      (a, b) => (usage[a.name] ?? 0) - (usage[b.name] ?? 0) || byCost(a, b),
    )[0]!;
    const reason = `${why}${parkedWhy}tier ${tier}, cheapest least-used entry: ${describe(entry)}`;
    return { entry, tier, reason, fallback, exhausted: false };
  }
  const top = tiers[tiers.length - 1]!;
  // Every untried entry is gone: the highest tier with an open entry retries its cheapest.
  for (let t = tiers.length - 1; t >= tierRank(floor); t--) {
    const tier = tiers[t]!;
    const { list, fallback } = candidates(input, tier);
    const entry = fallback && parkedBelow ? undefined : list.filter(open)[0];
    if (!entry) continue;
    return {
      entry,
      tier,
      reason: `every entry up to tier ${top} has failed on this issue; retrying ${describe(entry)}`,
      fallback,
      exhausted: true,
    };
  }
  const { list, fallback } = candidates(input, floor);
  const entry = list[0]!;
  return {
    entry,
    tier: floor,
    reason: `every entry that can take it from tier ${floor} up is on a parked endpoint; it waits for one to come back`,
    fallback,
    exhausted: false,
    parked: true,
  };
};

const providerOf = (e: RosterEntry): string => e.provider ?? e.tool;

export interface ReviewPick {
  entry: RosterEntry;
  reason: string;
  fallback: boolean;
}

/** A reviewer from a different tool and provider than the author where the roster allows. */
export const pickReviewer = (roster: readonly RosterEntry[], author: RosterEntry): ReviewPick => {
  const distance = (e: RosterEntry): number =>
    (e.tool !== author.tool ? 0 : 1) + (providerOf(e) !== providerOf(author) ? 0 : 1);
  const list = roster
    .filter((e) => e.roles.includes('review') && e.name !== author.name)
    .sort((a, b) => distance(a) - distance(b) || byCost(a, b));
  const best = list[0];
  if (best) {
    const how =
      distance(best) === 0 ? 'a different tool and provider' : 'the most different reviewer available';
    return { entry: best, reason: `review by ${describe(best)}: ${how}`, fallback: false };
  }
  const entry: RosterEntry =
    author.tool === 'codex'
      ? { ...defaultEntries.execution, name: 'default-review-sonnet', roles: ['review'] }
      : { name: 'default-review-codex', tool: 'codex', roles: ['review'], tiers: [...tiers], costRank: 1 };
  return { entry, reason: `roster has no review entry; built-in default ${describe(entry)}`, fallback: true };
};
