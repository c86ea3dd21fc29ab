import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { hardBlockerOf } from './hard-blocker.ts';

describe('hardBlockerOf', () => {
  it('names a refused credential (401) and a refused access (403) as hard blockers', () => {
    expect(hardBlockerOf(new AppError('unauthorized', 'GitHub rejected the app'))).toBe(
      "the forge refused the bot's credentials: GitHub rejected the app",
    );
    expect(hardBlockerOf(new AppError('forbidden', 'the app lacks write access'))).toMatch(
      /refused the bot access/,
    );
  });

  it('leaves what a retry may cure alone: rate limits, outages, anything not an AppError', () => {
    expect(hardBlockerOf(new AppError('rate_limited', 'slow down'))).toBeUndefined();
    expect(hardBlockerOf(new AppError('forge_unavailable', '502'))).toBeUndefined();
    expect(hardBlockerOf(new Error('boom'))).toBeUndefined();
  });
});
