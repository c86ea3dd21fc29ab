// The ship decision (seed 000 §5): deploy or a local preview. Deploy only when the operator said
// deploy, or the policy is auto AND a deploy command exists AND the milestone does not call itself
// throwaway / spike / disposable AND nothing flagged the change unsafe. In doubt: local, never a
// surprise deploy.

export type ShipPolicy = 'auto' | 'local' | 'deploy';

export interface ShipInput {
  policy: ShipPolicy;
  /** A deploy command (or target) is configured for this repo. */
  deployCommand: boolean;
  milestoneDescription: string;
  /** Something flagged the change unsafe to debug in prod (e.g. a destructive migration). */
  unsafe: boolean;
}

export interface ShipDecision {
  path: 'deploy' | 'local';
  reason: string;
}

const throwaway = /\b(throwaway|throw-away|spike|disposable)\b/i;

export const decideShip = (input: ShipInput): ShipDecision => {
  if (input.policy === 'local') return { path: 'local', reason: 'ship policy is local' };
  if (input.policy === 'deploy') {
    if (!input.deployCommand)
      return { path: 'local', reason: 'ship policy is deploy but no deploy command is configured' };
    return { path: 'deploy', reason: 'ship policy is deploy' };
  }
  if (!input.deployCommand) return { path: 'local', reason: 'no deploy command is configured' };
  const m = throwaway.exec(input.milestoneDescription);
  if (m) return { path: 'local', reason: `the milestone description says "${m[1]}"` };
  if (input.unsafe) return { path: 'local', reason: 'the change was flagged unsafe to debug in production' };
  return {
    path: 'deploy',
    reason: 'auto: a deploy command exists and nothing marks the milestone throwaway or unsafe',
  };
};
