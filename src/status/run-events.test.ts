import { describe, expect, it } from 'vitest';
import { finishedDashboard } from '../../test/fixtures/runs/finished-run.ts';
import { createRunEvents, maxRememberedRuns } from './run-events.ts';

describe('run events', () => {
  it('tells every subscriber until it unsubscribes, and a throwing one does not stop the rest', () => {
    const errors: unknown[] = [];
    const events = createRunEvents({ onListenerError: (e) => errors.push(e) });
    const seen: string[] = [];
    events.subscribe(() => {
      throw new Error('closed stream');
    });
    const off = events.subscribe((id) => seen.push(id));
    events.publish('r1');
    off();
    events.publish('r2');
    expect(seen).toEqual(['r1']);
    expect(errors).toHaveLength(2);
  });

  it('keeps the latest dashboard per run, for a bounded number of runs', () => {
    const events = createRunEvents();
    const first = finishedDashboard();
    const second = { ...finishedDashboard(), runState: 'cancelled' };
    events.publish('r1', first);
    events.publish('r1');
    expect(events.latestDashboard('r1')).toBe(first);
    events.publish('r1', second);
    expect(events.latestDashboard('r1')?.runState).toBe('cancelled');
    for (let i = 0; i < maxRememberedRuns; i++) events.publish(`other-${i}`, first);
    expect(events.latestDashboard('r1')).toBeUndefined();
    expect(events.latestDashboard(`other-${maxRememberedRuns - 1}`)).toBe(first);
  });
});
