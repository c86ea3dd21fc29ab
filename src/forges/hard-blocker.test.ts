import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { forgeRefusalOf } from './hard-blocker.ts';

describe('forgeRefusalOf', () => {
  it('names a refused credential (401) and a refused access (403) as hard blockers, typed', () => {
    expect(forgeRefusalOf(new AppError('unauthorized', 'GitHub rejected the app'))).toEqual({
      refusal: 'credentials',
      detail: 'GitHub rejected the app',
    });
    expect(forgeRefusalOf(new AppError('forbidden', 'the app lacks write access'))).toEqual({
      refusal: 'access',
      detail: 'the app lacks write access',
    });
  });

  it('leaves what a retry may cure alone: rate limits, outages, anything not an AppError', () => {
    expect(forgeRefusalOf(new AppError('rate_limited', 'slow down'))).toBeUndefined();
    expect(forgeRefusalOf(new AppError('forge_unavailable', '502'))).toBeUndefined();
    expect(forgeRefusalOf(new Error('boom'))).toBeUndefined();
  });
});
