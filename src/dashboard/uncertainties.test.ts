import { describe, expect, it } from 'vitest';
import { bucketOf, recurringThemes, renderDecisionBuckets } from './uncertainties.ts';

describe('decision buckets', () => {
  it('puts a step that must happen first under activation, a later piece of work under follow-ups, a choice under policy', () => {
    expect(bucketOf('FEATURE_X env var must exist in prod before merging')).toBe('activation');
    expect(bucketOf('The migration has to run before deploy')).toBe('activation');
    expect(bucketOf('Pagination is left for a follow-up ticket')).toBe('follow_up');
    expect(bucketOf('I chose 30 s as the timeout; is that the policy we want?')).toBe('policy');
  });

  it('names a theme only when two different tickets raise it', () => {
    const themes = recurringThemes([
      { ticket: '#1', uncertainties: ['The timeout value is a guess', 'timeout again'], followUps: [] },
      { ticket: '#2', uncertainties: ['Which timeout should the client use?'], followUps: [] },
      { ticket: '#3', uncertainties: ['Naming of the module'], followUps: [] },
    ]);
    expect(themes).toEqual([{ word: 'timeout', tickets: ['#1', '#2'] }]);
  });

  it('renders each bucket with its tickets, lists filed follow-ups, and is empty when there is nothing to relay', () => {
    const text = renderDecisionBuckets([
      { ticket: '#9', uncertainties: ['Set SMTP_HOST in production first'], followUps: ['acme/app#40'] },
      { ticket: 'acme/lib#3', uncertainties: ['Kept the old name for compatibility'], followUps: [] },
    ]);
    expect(text).toContain('**Activation steps');
    expect(text).toMatch(/Activation steps[^\n]*\n- #9: Set SMTP&#95;HOST in production first/);
    expect(text).toMatch(/Policy blessings[^\n]*\n- acme\/lib#3: Kept the old name/);
    expect(text).toContain('- #9: filed acme/app#40');
    expect(renderDecisionBuckets([{ ticket: '#1', uncertainties: [], followUps: [] }])).toBe('');
  });

  it('keeps a worker line inert: no mention, link or HTML gets through', () => {
    const text = renderDecisionBuckets([
      { ticket: '#1', uncertainties: ['@everyone see [x](http://evil) <img src=x>'], followUps: [] },
    ]);
    expect(text).not.toContain('@everyone');
    expect(text).not.toContain('](http');
    expect(text).not.toContain('<img');
  });
});
