// What a person types to resume a run of each kind: a fleet's and a plan run's own command, never
// `/blitz resume` (which does not reach a fleet). A park notice, a hard blocker's notice and the
// attention state name it. A leaf: the status pages read it without the planner's types.

/** The resume command of a run of this kind. */
export const resumeCommandOf = (kind: 'blitz' | 'fleet' | 'plan'): string =>
  kind === 'fleet' ? '/ticket-fleet resume' : kind === 'plan' ? '/plan-blitz resume' : '/blitz resume';
