// The one way to turn a worker pick (or an attempt's entry name) into the roster entry a job carries:
// the operator's entry of that name, else the built-in default of that name, else the pick itself.
import { type RosterEntry, rosterEntrySchema } from '../config/blitz-config.ts';
import { defaultEntries, type RosterEntry as PickedEntry } from '../plan/routing.ts';

export const rosterEntryFor = (
  roster: readonly RosterEntry[],
  pick: Pick<PickedEntry, 'name'> & Partial<PickedEntry>,
): RosterEntry =>
  roster.find((e) => e.name === pick.name) ??
  rosterEntrySchema.parse(
    Object.values(defaultEntries).find((e) => e.name === pick.name) ?? { roles: ['plan'], ...pick },
  );
