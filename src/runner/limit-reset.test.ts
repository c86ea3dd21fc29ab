import { describe, expect, it } from 'vitest';
import { classifyExit, environmentCause } from './failure-class.ts';
import { limitResetFrom, readDuration, zonedTime } from './limit-reset.ts';

const now = new Date('2026-12-01T11:00:00.000Z');
const at = (text: string, timeZone = 'UTC') => limitResetFrom(text, { now, timeZone })?.resetAt.toISOString();
const epoch = (iso: string) => Date.parse(iso) / 1000;

describe('limitResetFrom: each tool’s own words', () => {
  it('claude: the `usage limit reached|<epoch>` result, and a rejected rate_limit_event', () => {
    const result = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: true,
      result: `Claude AI usage limit reached|${epoch('2026-12-01T15:00:00Z')}`,
    });
    expect(at(`{"type":"system","subtype":"init"}\n${result}`)).toBe('2026-12-01T15:00:00.000Z');
    const event = JSON.stringify({
      type: 'rate_limit_event',
      rate_limit_info: {
        status: 'rejected',
        resetsAt: epoch('2026-12-01T16:00:00Z'),
        rateLimitType: 'five_hour',
      },
    });
    expect(at(event)).toBe('2026-12-01T16:00:00.000Z');
    // An event that stayed allowed names no reset.
    expect(at(event.replace('rejected', 'allowed'))).toBeUndefined();
  });

  it('claude: `resets <time> (<zone>)` in the zone it names, else the host’s', () => {
    // 11:00 UTC is 19:00 in Singapore: 8:20pm there is 12:20 UTC the same day.
    expect(at("You've hit your session limit · resets 8:20pm (Asia/Singapore)")).toBe(
      '2026-12-01T12:20:00.000Z',
    );
    // 12:00 in Paris: 2am is tomorrow, 01:00 UTC.
    expect(at('5-hour limit reached ∙ resets 2am', 'Europe/Paris')).toBe('2026-12-02T01:00:00.000Z');
    expect(at('Weekly limit reached ∙ resets Dec 4 at 10am', 'UTC')).toBe('2026-12-04T10:00:00.000Z');
    // A zone that does not exist falls back to the host zone given.
    expect(at('resets 3pm (Mars/Olympus)', 'UTC')).toBe('2026-12-01T15:00:00.000Z');
  });

  it('codex: `try again at 3:04 PM.` in the host’s local time, and with a date', () => {
    const message = JSON.stringify({
      type: 'error',
      message:
        "You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:04 PM.",
    });
    // 06:00 in New York: 3:04 PM there is 20:04 UTC.
    expect(at(message, 'America/New_York')).toBe('2026-12-01T20:04:00.000Z');
    expect(at("You've hit your usage limit. Try again at Dec 3rd, 2026 9:15 AM.")).toBe(
      '2026-12-03T09:15:00.000Z',
    );
  });

  it('providers through opencode or aider: `try again in 7m12s`, `in 2 days 3 hours 4 minutes`', () => {
    expect(at('Rate limit reached for gpt-5 on tokens per min. Please try again in 7m12s.')).toBe(
      '2026-12-01T11:07:12.000Z',
    );
    expect(at("You've hit your usage limit. Try again in 2 days 3 hours 4 minutes.")).toBe(
      '2026-12-03T14:04:00.000Z',
    );
    expect(readDuration('1.5s')).toBe(1500);
    expect(readDuration('6ms')).toBe(6);
  });

  it('believes no time in the past, none more than a month ahead, and reads only the latest mention', () => {
    expect(at(`Claude AI usage limit reached|${epoch('2026-11-30T15:00:00Z')}`)).toBeUndefined();
    expect(at(`Claude AI usage limit reached|${epoch('2027-06-01T00:00:00Z')}`)).toBeUndefined();
    expect(at('API Error: 500 internal error\nexit 1')).toBeUndefined();
    expect(at('try again in 5 minutes\nlater: Please try again in 1h.')).toBe('2026-12-01T12:00:00.000Z');
  });

  it('turns a wall-clock time into an instant across daylight saving', () => {
    expect(zonedTime(2026, 6, 1, 12, 0, 'Europe/Paris').toISOString()).toBe('2026-07-01T10:00:00.000Z');
    expect(zonedTime(2026, 0, 1, 12, 0, 'Europe/Paris').toISOString()).toBe('2026-01-01T11:00:00.000Z');
  });
});

describe('classifyExit reports the reset time of a provider limit', () => {
  const limitLog = `{"type":"result","is_error":true,"result":"Claude AI usage limit reached|${epoch('2026-12-01T15:00:00Z')}"}`;

  it('in the summary and in the typed cause, when the caller gives the time', () => {
    const r = classifyExit({ exitCode: 1, branchMoved: false, logTail: limitLog, now });
    expect(r).toEqual({
      outcome: 'environment_failure',
      summary: 'Environment failure: provider limit reached (resets at 2026-12-01T15:00:00.000Z).',
      cause: { kind: 'environment', cause: 'provider_limit', resetAt: '2026-12-01T15:00:00.000Z' },
    });
  });

  it('leaves the summary as before without a time, or for an outage', () => {
    expect(classifyExit({ exitCode: 1, branchMoved: false, logTail: limitLog })).toEqual({
      outcome: 'environment_failure',
      summary: 'Environment failure: provider limit reached.',
      cause: { kind: 'environment', cause: 'provider_limit' },
    });
    const down = classifyExit({
      exitCode: 1,
      branchMoved: false,
      logTail: 'API Error: Connection refused',
      now,
    });
    expect(down.cause).toEqual({ kind: 'environment', cause: 'endpoint_unreachable' });
    expect(down.summary).toBe('Environment failure: model endpoint unreachable.');
  });

  it('knows claude’s newer limit wordings as provider limits', () => {
    for (const text of [
      "You've hit your session limit · resets 8:20pm (Asia/Singapore)",
      "You've hit your weekly limit · resets Tuesday",
      '5-hour limit reached ∙ resets 2am',
      'Claude AI usage limit reached|1796130000',
    ]) {
      expect(environmentCause(text), text).toBe('provider_limit');
    }
  });
});
