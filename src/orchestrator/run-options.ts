// Moved to plan/run-options.ts; start-run.ts imports it here until its rework (issue-fold) lands.
export type { RunOptionsStored } from '../plan/run-options.ts';
