import { describe, expect, it } from 'vitest';
import { tellStanding, tellStep } from './tell-delivery.ts';

const msg = (id: number, sent?: { attemptId: string; resumes: number }) => ({
  id,
  by: 'alice',
  text: `message ${id}`,
  ...(sent ? { sent } : {}),
});

describe('tellStep', () => {
  it('a running session gets the waiting messages at once, by a nudge', () => {
    expect(tellStep([msg(1), msg(2)], [{ id: 'a1', outcome: undefined, feedbackResumes: 1 }])).toEqual({
      kind: 'nudge',
      attemptId: 'a1',
      resumes: 1,
      tells: [msg(1), msg(2)],
    });
  });

  it('an ended session waits for its next resume; no message, nothing to send', () => {
    expect(tellStep([msg(1)], [{ id: 'a1', outcome: 'solved' }]).kind).toBe('wait');
    expect(tellStep([msg(1)], []).kind).toBe('wait');
    expect(tellStep([], [{ id: 'a1' }]).kind).toBe('wait');
    expect(tellStep(undefined, [{ id: 'a1' }]).kind).toBe('wait');
  });

  it('no second nudge while one is in flight', () => {
    const tells = [msg(1, { attemptId: 'a1', resumes: 0 }), msg(2)];
    expect(tellStep(tells, [{ id: 'a1', outcome: undefined, feedbackResumes: 0 }]).kind).toBe('wait');
  });

  it('a later message goes by its own nudge once the first was delivered', () => {
    const tells = [msg(1, { attemptId: 'a1', resumes: 0 }), msg(2)];
    expect(tellStep(tells, [{ id: 'a1', outcome: undefined, feedbackResumes: 1 }])).toMatchObject({
      kind: 'nudge',
      resumes: 1,
      tells: [msg(2)],
    });
  });

  it("the bot's word that the integration branch moved waits for the next resume, never a nudge", () => {
    const base = { id: -1, by: 'blitz-bot', text: 'moved', kind: 'base_change' as const, files: ['a.ts'] };
    const running = [{ id: 'a1', outcome: undefined, feedbackResumes: 0 }];
    expect(tellStep([base], running).kind).toBe('wait');
    // A person's message still goes at once, alone; the bot's stays for the resume.
    expect(tellStep([base, msg(2)], running)).toMatchObject({ kind: 'nudge', tells: [msg(2)] });
    expect(tellStanding([base], [{ id: 'a1', outcome: 'solved' }]).waiting).toEqual([base]);
  });
});

describe('tellStanding', () => {
  it('delivered once the runner carried the nudge out; never dropped when it did not', () => {
    const sent = msg(1, { attemptId: 'a1', resumes: 2 });
    expect(tellStanding([sent], [{ id: 'a1', feedbackResumes: 3, outcome: 'solved' }]).delivered).toEqual([
      sent,
    ]);
    expect(tellStanding([sent], [{ id: 'a1', feedbackResumes: 2 }]).inFlight).toEqual([sent]);
    // The session ended before the nudge ran: the message waits for the next resume.
    expect(tellStanding([sent], [{ id: 'a1', feedbackResumes: 2, outcome: 'solved' }]).waiting).toEqual([
      sent,
    ]);
    // Sent to an attempt that is gone (a bounce started afresh): the new session gets it too.
    expect(tellStanding([sent], [{ id: 'a2' }]).waiting).toEqual([sent]);
  });
});
