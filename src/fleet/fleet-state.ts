// A fleet run's progress (plan/fleet-progress.ts parses it) written back: the whole of it, or one ticket.
import { type FleetProgress, fleetProgressOf, type TicketState, ticketOf } from '../plan/fleet-progress.ts';
import { writeProgress } from '../runs/run-writer.ts';
import type { RunRecord, RunStore } from '../store/run-store.ts';

/** Reads the run afresh, applies `fn` to its fleet progress and writes it back (between passes only). */
export const updateFleet = async (
  store: RunStore,
  runId: string,
  fn: (p: FleetProgress) => void,
): Promise<RunRecord> => {
  return writeProgress(store, runId, (_, run) => {
    const p = fleetProgressOf(run);
    fn(p);
    return { fleet: p };
  });
};

/** Changes one ticket's state (created with defaults when missing). */
export const updateTicket = (
  store: RunStore,
  runId: string,
  key: string,
  patch: (t: TicketState) => Partial<TicketState>,
): Promise<RunRecord> =>
  updateFleet(store, runId, (p) => {
    const t = ticketOf(p, key);
    p.tickets[key] = { ...t, ...patch(t) };
  });
