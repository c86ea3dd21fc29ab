// Slow for a reason: blitz runs on each forge over several waves, each after a budget probe, on real git.
// The budget probe runs before each wave's dispatch (seed 000 §1.5), not at most once a minute: an
// answer that changes between two waves governs the next one at once, on the real bot over a fake forge.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunnerEvent } from '../../src/runner/types.ts';
import type { ProbeResult } from '../../src/runs/budget-probe.ts';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import type { SeedIssue } from '../support/world.ts';

const chain: SeedIssue[] = [
  { number: 1, title: 'First', body: 'Add `src/a.ts`.' },
  { number: 2, title: 'Second', body: 'Add `src/b.ts`.', blockedBy: [1] },
  { number: 3, title: 'Third', body: 'Add `src/c.ts`.', blockedBy: [2] },
];

const ok: ProbeResult = { status: 'ok', recommendedMaxSessions: 2, preferMedium: false, park: false };
const parked: ProbeResult = { status: 'ok', recommendedMaxSessions: 0, preferMedium: false, park: true };

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The order of probe calls and worker spawns, as the bot did them. */
const recorder = () => {
  const events: string[] = [];
  let harness: BlitzHarness | undefined;
  const onRunnerEvent = (e: RunnerEvent) => {
    if (e.type !== 'attempt.started' || !harness) return;
    void harness.bot.runs.ledger.get(e.attemptId).then((a) => a && events.push(`spawn #${a.issue.number}`));
  };
  return { events, onRunnerEvent, attach: (x: BlitzHarness) => (harness = x) };
};

describe.each(['github', 'gitea'] as const)('blitz budget probe on %s', (forge) => {
  it('asks the probe before every wave: each spawn follows a fresh probe; a park pauses the run until resumed', async () => {
    const rec = recorder();
    // Park as soon as the first issue is closed, until the test lets go: the second wave must see it.
    let holding = true;
    h = await startBlitzHarness({
      forge,
      issues: chain,
      onRunnerEvent: rec.onRunnerEvent,
      budgetProbe: async () => {
        const park = holding && h?.world.issue(h.repo, 1)?.state === 'closed';
        rec.events.push(`probe ${park ? 'park' : 'ok'}`);
        return park ? parked : ok;
      },
    });
    rec.attach(h);
    const x = h;
    await x.comment('/blitz M1', 'alice');
    await x.drive(
      async () => rec.events.includes('probe park') && (await x.bot.runs.ledger.listOpen()).length === 0,
      40_000,
    );
    for (let i = 0; i < 3; i++) await x.round();
    expect(rec.events.filter((e) => e.startsWith('spawn'))).toEqual(['spawn #1']);
    expect(x.world.issue(x.repo, 2)?.state).toBe('open');
    // A park pauses the run (seed 000: the run parks) and the dashboard shows the probe's answer.
    const run = (await x.liveRun())!;
    expect(run.state).toBe('paused');
    expect(run.progress.budget).toEqual(parked);

    // The probe says go again and a person resumes: the next wave is planned on a fresh answer at once
    // (a cached park would pause the run again).
    holding = false;
    await x.comment('/blitz resume', 'alice');
    await x.drive(async () => x.world.issue(x.repo, 3)?.state === 'closed', 40_000);
    const spawns = rec.events.map((e, i) => [e, i] as const).filter(([e]) => e.startsWith('spawn'));
    expect(spawns.map(([e]) => e)).toEqual(['spawn #1', 'spawn #2', 'spawn #3']);
    // Every wave was planned on a probe asked after the previous wave's spawn, and the probe that let it go said ok.
    let last = -1;
    for (const [e, at] of spawns) {
      const asked = rec.events.slice(last + 1, at).filter((p) => p.startsWith('probe'));
      expect(asked.length, `a probe before ${e}`).toBeGreaterThan(0);
      expect(asked.at(-1), `the last probe before ${e}`).toBe('probe ok');
      last = at;
    }
  }, 120_000);
});
