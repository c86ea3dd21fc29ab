// slow: each fault runs a whole milestone on the in-process bot with real git and fake agents (both forges).
// The runner-side faults of an unattended run (issue 18): each ends in a named state, exactly one
// notification through the configured notifier, a command that continues, and once the fault clears,
// the milestone finishing with every issue closed once.
import { afterEach, describe, expect, it } from 'vitest';
import { startUnattendedWorld, type UnattendedWorld } from '../support/unattended-world.ts';

let w: UnattendedWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** The milestone finished: the run done, every issue closed exactly once. */
const finishes = async (x: UnattendedWorld, issues = [1, 2]) => {
  await x.driveToState('done', 60_000);
  for (const n of issues) expect(x.closes(n), `#${n} closed once`).toBe(1);
};

describe.each(['github', 'gitea'] as const)('unattended faults on %s (runner side)', (forge) => {
  it('a worker that never commits reaches the nudge cap: needs a person, one notice, `/blitz retry #1` finishes it', async () => {
    w = await startUnattendedWorld({ forge, runner: { maxNudges: 2 } });
    const x = w;
    x.agent('nothing');
    await x.start();
    await x.drive(async () => x.noticesOf('needs_person').length > 0, 60_000);
    const [notice] = x.noticesOf('needs_person');
    expect(notice?.issue).toBe(1);
    expect(notice?.command).toBe('/blitz retry #1');
    // The state lasts: more rounds send nothing more.
    await x.round();
    await x.round();
    expect(x.noticesOf('needs_person')).toHaveLength(1);
    x.agent();
    await x.command('/blitz retry #1');
    await x.round();
    expect(x.replies().some((r) => r.startsWith('Retrying #1'))).toBe(true);
    await finishes(x);
  });
});
