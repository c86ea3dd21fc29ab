import { describe, expect, it } from 'vitest';
import type { RunProgress } from '../store/run-store.ts';
import { reasonKindOf, withoutReason, withReason } from './run-reason.ts';

const park = { kind: 'environment', since: '2026-12-07T10:00:00.000Z' } as unknown as RunProgress['park'];

describe('a run reason and the kind of step that wrote it', () => {
  it('a step drops the reason only when it wrote it, whatever the words', () => {
    const parked = withReason({ park }, 'park', 'the endpoint is down');
    expect(withoutReason(parked, 'park')).toEqual({ park });
    // The same words written by a stop stay when the park lifts: the kind decides, not the text.
    const stopped = withReason({ park }, 'stop', 'the endpoint is down');
    expect(withoutReason(stopped, 'park')).toEqual(stopped);
    expect(withoutReason(stopped, 'hard_blocker')).toEqual(stopped);
    expect(withoutReason(stopped, 'stop')).toEqual({ park });
  });

  it('a run kept before kinds were written: its hard blocker, then its park, wrote the reason', () => {
    const hardBlocker = { reason: 'the forge refused the bot (401)', since: '2026-12-07T10:00:00.000Z' };
    expect(reasonKindOf({ reason: 'x', hardBlocker, park })).toBe('hard_blocker');
    expect(reasonKindOf({ reason: 'x', park })).toBe('park');
    expect(reasonKindOf({ reason: 'x' })).toBe('stop');
    expect(reasonKindOf({ park })).toBeUndefined();
    expect(withoutReason({ reason: 'x', park }, 'park')).toEqual({ park });
  });
});
