// The words a blitz or plan run posts on its trigger issue about issues the planner will not run: a
// dependency cycle, and a blocker that does not exist or cannot be read. One place for both run
// kinds; the key makes a report post once while its cause lasts.
import { issueRef } from '../plan/run-context.ts';
import type { Action } from '../plan/snapshot.ts';

type BlockerReport = Extract<Action, { type: 'report_cycle' | 'report_unknown_blocker' }>;

const words = {
  blitz: {
    prefix: 'blitz',
    cycle: 'will not run',
    unknown: (one: boolean) => `${one ? 'it stays' : 'they stay'} open and will not run`,
  },
  plan: { prefix: 'plan-blitz', cycle: 'will not be planned', unknown: () => 'not planned' },
};

/** The report's once-key and text, in a blitz's words or a plan run's. */
export const blockerReport = (kind: keyof typeof words, a: BlockerReport): { key: string; text: string } => {
  const w = words[kind];
  if (a.type === 'report_cycle')
    return {
      key: `cycle:${a.members.join(',')}`,
      text: `${w.prefix}: these issues block each other in a cycle and ${w.cycle} until a person cuts it: ${a.members.map(issueRef).join(', ')}.`,
    };
  const one = a.namedBy.length === 1;
  return {
    key: `unknown:${a.blocker}:${a.namedBy.join(',')}`,
    text: `${w.prefix}: ${a.namedBy.map(issueRef).join(', ')} ${one ? 'is' : 'are'} blocked by ${a.blocker}, which does not exist or cannot be read; ${w.unknown(one)} (fail closed).`,
  };
};
