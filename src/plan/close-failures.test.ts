import { describe, expect, it } from 'vitest';
import { closeFailedSentence, maxCloseFailures } from './close-failures.ts';

describe('a merged issue whose close keeps failing', () => {
  it('says nothing below the bound', () => {
    expect(closeFailedSentence('#1', undefined)).toBeUndefined();
    for (let count = 1; count < maxCloseFailures; count++)
      expect(closeFailedSentence('#1', { count, cause: 'it timed out' })).toBeUndefined();
  });

  it('at the bound says what, why and how many times, and what goes on', () => {
    expect(closeFailedSentence('#1', { count: maxCloseFailures, cause: 'the forge is unavailable' })).toBe(
      `#1 is merged but could not be closed: the forge is unavailable, ${maxCloseFailures} times; it is tried again on each pass, or a person can close it`,
    );
  });
});
