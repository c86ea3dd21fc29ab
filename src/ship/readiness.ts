// The readiness gate (seed 000 §4): a milestone is ready only when every workable issue and epic is
// closed, the build is green on the integration branch's current head, and the smoke command is
// green. Anything short of that comes back as the list of unmet conditions, in words.

export type CheckStatus =
  | { state: 'green' /** Commit the check ran on. */; sha?: string }
  | { state: 'red'; sha?: string /** e.g. the failing command and exit code. */; detail?: string }
  | { state: 'running' }
  | { state: 'not_run' }
  | { state: 'not_configured' };

export interface ReadinessIssue {
  number: number;
  title: string;
  kind: 'workable' | 'epic';
  state: 'open' | 'closed';
}

export interface ReadinessInput {
  issues: readonly ReadinessIssue[];
  /** The build command on the integration branch. */
  build: CheckStatus;
  /** The smoke command on the integration branch. */
  smoke: CheckStatus;
  /** Current head of `blitz/<slug>`: a check that ran on an older commit does not count. */
  integrationHead?: string;
}

export type Readiness = { ready: true } | { ready: false; unmet: string[] };

const listed = (issues: readonly ReadinessIssue[], max = 5): string => {
  const shown = issues.slice(0, max).map((i) => `#${i.number}`);
  return issues.length > max ? `${shown.join(', ')} and ${issues.length - max} more` : shown.join(', ');
};

const checkUnmet = (
  name: string,
  key: string,
  check: CheckStatus,
  head: string | undefined,
): string | undefined => {
  switch (check.state) {
    case 'green':
      if (head && check.sha && check.sha !== head) {
        return `${name} was green on ${check.sha.slice(0, 7)}, not on the current head ${head.slice(0, 7)}: it must run again`;
      }
      return undefined;
    case 'red':
      return `${name} is red${check.detail ? `: ${check.detail}` : ''}`;
    case 'running':
      return `${name} is still running`;
    case 'not_run':
      // A check that never ran is not green (seed 000 §4): it must actually execute.
      return `${name} has not run on the integration branch yet`;
    case 'not_configured':
      return `no ${name} command is configured (set \`${key}:\` in blitz.yml)`;
  }
};

export const checkReadiness = (input: ReadinessInput): Readiness => {
  const unmet: string[] = [];
  const openWorkable = input.issues.filter((i) => i.kind === 'workable' && i.state === 'open');
  const openEpics = input.issues.filter((i) => i.kind === 'epic' && i.state === 'open');
  if (openWorkable.length > 0) {
    unmet.push(
      `${openWorkable.length} workable issue${openWorkable.length === 1 ? '' : 's'} still open: ${listed(openWorkable)}`,
    );
  }
  if (openEpics.length > 0) {
    unmet.push(
      `${openEpics.length} epic${openEpics.length === 1 ? '' : 's'} still open: ${listed(openEpics)}`,
    );
  }
  const build = checkUnmet('build', 'build', input.build, input.integrationHead);
  if (build) unmet.push(build);
  const smoke = checkUnmet('smoke', 'smoke', input.smoke, input.integrationHead);
  if (smoke) unmet.push(smoke);
  return unmet.length === 0 ? { ready: true } : { ready: false, unmet };
};
