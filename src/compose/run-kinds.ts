// The run kinds beside the blitz that the orchestrator drives, in the order they are offered an intent
// no blitz handler took. The bot and the end-to-end harness register the same list.
import { fleetKind } from '../fleet/index.ts';
import type { RunKindOf } from '../orchestrator/run-kind.ts';
import { planBlitzKind } from '../plan-blitz/index.ts';

export const runKinds: readonly RunKindOf[] = [planBlitzKind, fleetKind];
