// The ship decision (seed 000 §5): deploy or a local preview. An explicit choice wins (the run's
// `--deploy` / `--local`, then the repo's `ship.policy`); under `auto` the run deploys only when
// every condition of the heuristic holds. Uncertain means local: never a surprise deploy.

export type ShipPolicy = 'auto' | 'deploy' | 'local';

export interface ShipDecisionInput {
  /** `--deploy` / `--local` on the `/blitz` command; wins over the repo's policy. */
  override?: 'deploy' | 'local';
  /** Repo config `ship.policy`; `auto` when unset. */
  policy?: ShipPolicy;
  milestone: { title: string; description: string };
  /** Repo config `ship.deploy` argv; absent means nothing to deploy with. */
  deployCommand?: readonly string[];
  /** Labels on the milestone's issues: `unsafe-deploy` on any of them vetoes a deploy. */
  labels: readonly string[];
  /** Paths changed on the integration branch against the default branch. */
  changedFiles: readonly string[];
}

export interface ShipDecision {
  path: 'deploy' | 'local';
  /** Where the decision came from. */
  source: 'override' | 'policy' | 'heuristic';
  /** Why, in words, for the dashboard. */
  reasons: string[];
}

export const unsafeDeployLabel = 'unsafe-deploy';

/** Words in the milestone's title or description that mark it as not meant for production. */
export const throwawayPattern = /\b(throw-?away|spikes?|disposable)\b/i;

/** A path that is a migration: a `migrations`/`migrate` folder, or any `.sql` file. */
export const migrationPathPattern = /(^|\/)(migrations?|migrate|db\/migrate)\/|\.sql$/i;

/** A migration whose name (file, or folder below `migrations/`) says it destroys data or shape. */
export const destructiveNamePattern = /(drop|destructive|truncate|delete|remove|rename)/i;

export const destructiveMigrations = (changedFiles: readonly string[]): string[] =>
  changedFiles.filter((f) => {
    const m = migrationPathPattern.exec(f);
    if (!m) return false;
    // Below a migrations folder the name may be a folder (prisma: `<ts>_drop_x/migration.sql`).
    const named = m[2] ? f.slice(m.index + m[0].length) : f.slice(f.lastIndexOf('/') + 1);
    return destructiveNamePattern.test(named);
  });

const hasDeployCommand = (input: ShipDecisionInput): boolean => (input.deployCommand?.length ?? 0) > 0;

const explicit = (
  want: 'deploy' | 'local',
  source: 'override' | 'policy',
  input: ShipDecisionInput,
): ShipDecision => {
  const by = source === 'override' ? `--${want} on the command` : `ship.policy is ${want}`;
  if (want === 'deploy' && !hasDeployCommand(input)) {
    return { path: 'local', source, reasons: [`${by}, but no ship.deploy command is configured`] };
  }
  return { path: want, source, reasons: [by] };
};

export const decideShipPath = (input: ShipDecisionInput): ShipDecision => {
  if (input.override) return explicit(input.override, 'override', input);
  const policy = input.policy ?? 'auto';
  if (policy !== 'auto') return explicit(policy, 'policy', input);

  const against: string[] = [];
  const milestoneText = `${input.milestone.title}\n${input.milestone.description}`;
  const word = throwawayPattern.exec(milestoneText);
  if (word) against.push(`the milestone is marked "${word[1]}"`);
  if (!hasDeployCommand(input)) against.push('no ship.deploy command is configured');
  if (input.labels.some((l) => l.toLowerCase() === unsafeDeployLabel)) {
    against.push(`an issue carries the label ${unsafeDeployLabel}`);
  }
  const destructive = destructiveMigrations(input.changedFiles);
  if (destructive.length > 0) {
    against.push(
      `destructive-looking migration${destructive.length === 1 ? '' : 's'}: ${destructive.slice(0, 3).join(', ')}`,
    );
  }
  if (against.length > 0) return { path: 'local', source: 'heuristic', reasons: against };
  return {
    path: 'deploy',
    source: 'heuristic',
    reasons: [
      'not a throwaway milestone',
      'a deploy command is configured',
      'no unsafe-deploy label or destructive migration',
    ],
  };
};
