// Moved to plan/handoff.ts; perform.ts imports it here until its rework (issue-fold) lands.
export { handoffFor } from '../plan/handoff.ts';
