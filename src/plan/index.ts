// The planner's public surface: what the orchestrator calls. Everything here is pure: plain data in,
// decisions out; no IO, no clock, no randomness.
export type {
  Category,
  Classification,
  Classified,
  ClassifyOptions,
  HoldKind,
  UnknownBlocker,
} from './classify.ts';
export { categories, classify, explain, keysIn } from './classify.ts';
export type { Cycle } from './cycles.ts';
export { findCycles } from './cycles.ts';
export { epicChildren, epicClosable, isChecklistOnly, isEpic } from './epics.ts';
export type { FenceDecision } from './fences.ts';
export { extractFences, fenceDecision } from './fences.ts';
export type { Gate, GateKind } from './gates.ts';
export { executionGate, gateFor, planningGate } from './gates.ts';
export type { PlanGraph } from './graph.ts';
export { buildGraph, compareKeys, dependentsOf, stateOf } from './graph.ts';
export { holdReason, noHoldReason } from './holds.ts';
export { nextActions } from './next-actions.ts';
export type { CategoryChange } from './plan-index.ts';
export { PlanIndex } from './plan-index.ts';
export type {
  AttemptOutcome,
  AttemptRecord,
  ModelNotes,
  Override,
  Pick,
  PickInput,
  ReviewPick,
  Role,
  RosterEntry,
  Tool,
} from './routing.ts';
export { defaultEntries, isModelFailure, pickReviewer, pickWorker, roles, tools } from './routing.ts';
export type {
  Action,
  ActionType,
  BuildStatus,
  IssueProgress,
  PlanWaveTally,
  RunKind,
  RunOptions,
  RunSnapshot,
  StepStatus,
  StopState,
} from './snapshot.ts';
export type { RunIssueState, RunState } from './states.ts';
export {
  canTransitionIssue,
  canTransitionRun,
  isTerminalRunState,
  runIssueStates,
  runStates,
  transitionIssue,
  transitionRun,
} from './states.ts';
export type { Tier, TierAssessment } from './tier.ts';
export { assessTier, tiers } from './tier.ts';
export type { TriageVerdict } from './triage.ts';
export { fleetOrder, triageTicket } from './triage.ts';
export type { ExternalBlocker, IssueKey, PlanIssue, PlanLabel } from './types.ts';
export { hasLabel, issueKey, keyOf, parseIssueRef, planLabels } from './types.ts';
export type { Budget, Caps, WaveInput, WaveMember } from './wave.ts';
export {
  defaultMachineLimit,
  nextWave,
  orderForDispatch,
  priorityOf,
  sessionCap,
  slotsFree,
} from './wave.ts';
