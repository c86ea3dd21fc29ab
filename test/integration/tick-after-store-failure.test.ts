// A cron tick whose first read failed (the store went away under it) must not poison the ticks after
// it: the next tick reads the queued intents again and acts on a command recorded meanwhile.
import { afterEach, describe, expect, it } from 'vitest';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('tick after a store failure', () => {
  it('a tick after one whose intent listing failed lists the intents again and answers the command', async () => {
    h = await startBlitzHarness({
      forge: 'gitea',
      issues: [{ number: 1, title: 'First step', body: 'Add `src/a.ts`.' }],
    });
    const runs = h.bot.runs;
    const listQueuedIntents = runs.listQueuedIntents.bind(runs);
    let listings = 0;
    let failNext = true;
    runs.listQueuedIntents = async () => {
      listings += 1;
      if (failNext) {
        failNext = false;
        throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
      }
      return listQueuedIntents();
    };
    await h.comment('/blitz M1 --dry-run');
    await expect(h.bot.orch.tick()).rejects.toThrow('read ECONNRESET');
    expect(listings).toBe(1);

    await h.round();
    expect(listings).toBe(2);
    const plan = h.world
      .commentsOn(h.repo, h.trigger)
      .filter((c) => c.author === h!.world.botLogin && c.body.includes('dry run'));
    expect(plan).toHaveLength(1);
  }, 60_000);
});
