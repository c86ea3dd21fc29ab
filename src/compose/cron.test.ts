import { describe, expect, it } from 'vitest';
import { cronExpression } from './cron.ts';

describe('orchestrator tick schedule', () => {
  it('uses a seconds field under a minute and whole minutes above', () => {
    expect(cronExpression(15)).toBe('*/15 * * * * *');
    expect(cronExpression(60)).toBe('* * * * *');
    expect(cronExpression(300)).toBe('*/5 * * * *');
  });

  it('refuses an interval that is not a positive whole number of seconds', () => {
    expect(() => cronExpression(0)).toThrow(/whole number/);
    expect(() => cronExpression(1.5)).toThrow(/whole number/);
  });
});
