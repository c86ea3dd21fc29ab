// The test bot posts through the production outgoing filter (forges/outgoing-text.ts), so what tests
// read on the fake forge is what users would see: a token pasted into a command is redacted from the
// reply that quotes it, and a quoted bidi override and NUL are gone.
import { afterEach, describe, expect, it } from 'vitest';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.each(['github', 'gitea'] as const)('the test bot’s outgoing text on %s', (forge) => {
  it('redacts a token and strips control characters from a reply that quotes the command', async () => {
    h = await startBlitzHarness({
      forge,
      issues: [{ number: 1, title: 'Work', body: 'Add `src/a.ts`.', author: 'alice' }],
    });
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    await h.comment(`/blitz --max \u202Eevil\u0000 ${token} M1`, 'alice');
    await h.round();
    const reply = h.world
      .commentsOn(h.repo, h.trigger)
      .filter((c) => c.author !== 'alice')
      .map((c) => c.body)
      .find((b) => b.includes('evil'));
    expect(reply, 'the usage reply quoting the command').toContain('I could not run this command: ');
    expect(reply).not.toContain(token);
    expect(reply).toContain('[redacted]');
    expect(reply).not.toContain('\u202E');
    expect(reply).not.toContain('\u0000');
  }, 60_000);
});
