// slow: each fault runs a whole milestone on the in-process bot with real git and fake agents (both forges).
// The runner-side faults of an unattended run (issue 18): each ends in a named state, exactly one
// notification through the configured notifier, a command that continues, and once the fault clears,
// the milestone finishing with every issue closed once.
import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../src/plan/environment-park.ts';
import {
  expectMilestoneFinished,
  probeFailed,
  probeOk,
  probePark,
  startUnattendedWorld,
  type UnattendedWorld,
} from '../support/unattended-world.ts';

let w: UnattendedWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** The milestone finished with nothing left behind, and the fault told `alerts` times. */
const finishes = (x: UnattendedWorld, issues = [1, 2], merged = issues, alerts = 1) =>
  expectMilestoneFinished(x, issues, merged, { alerts });

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

describe.each(['github', 'gitea'] as const)('environment parks on %s', (forge) => {
  it('the model endpoint down parks the run with a doubling wait and one notice; once it is back the interrupted session resumes, nobody is charged, and the milestone finishes', async () => {
    w = await startUnattendedWorld({
      forge,
      runner: { environmentBackoff: { initialSeconds: 60, maxSeconds: 600 } },
    });
    const x = w;
    x.agent('outage');
    await x.start();
    await x.drive(async () => (await x.run())?.progress.park !== undefined);
    const parked = (await x.run())!;
    expect(parked.state).toBe('paused');
    expect(parked.progress.park).toMatchObject({ reason: 'model endpoint unreachable', failures: 1 });
    expect(x.noticesOf('parked')).toHaveLength(1);
    expect(x.noticesOf('parked')[0]).toMatchObject({ command: '/blitz resume' });
    // Parked means parked: rounds before the wait is over start nothing and write nothing.
    for (let i = 0; i < 3; i++) await x.round();
    expect(await x.h.bot.runs.ledger.listByRun(parked.id)).toHaveLength(1);
    expect((await x.run())!.version).toBe(parked.version);
    // The first wait passes; the probe (the session resumed) finds the endpoint still down: it waits twice as long.
    x.clock.advance(61_000);
    await x.drive(async () => (await x.run())?.progress.park?.failures === 2, 20_000);
    const again = (await x.run())!.progress.park!;
    expect(Date.parse(again.nextProbeAt) - x.clock.now().getTime()).toBeGreaterThan(100_000);
    expect((await x.run())!.state).toBe('paused');
    // The endpoint is back: after the wait the same session goes on, and the run with it.
    x.agent();
    x.clock.advance(121_000);
    await finishes(x);
    const attempts = await x.h.bot.runs.ledger.listByRun(parked.id);
    expect(attempts.filter((a) => a.issue.number === 1)).toHaveLength(1);
    expect(attempts.find((a) => a.issue.number === 1)?.outcome).toBe('solved');
    expect(x.noticesOf('parked')).toHaveLength(1);
  }, 120_000);

  it('`/blitz resume` on a run parked for an outage probes at once: the endpoint back, the session goes on and the milestone finishes', async () => {
    // A wait of an hour: only the command can bring the run back within the test.
    w = await startUnattendedWorld({
      forge,
      runner: { environmentBackoff: { initialSeconds: 3600, maxSeconds: 7200 } },
    });
    const x = w;
    x.agent('outage');
    await x.start();
    await x.drive(async () => (await x.run())?.progress.park !== undefined);
    const runId = (await x.run())!.id;
    expect(x.noticesOf('parked')[0]).toMatchObject({ command: '/blitz resume' });
    x.agent();
    await x.command('/blitz resume');
    await finishes(x);
    const attempts = await x.h.bot.runs.ledger.listByRun(runId);
    expect(attempts.filter((a) => a.issue.number === 1).map((a) => a.outcome)).toEqual(['solved']);
  }, 120_000);

  it('a spend limit parks the run until the reset time the tool printed, says that time, and resumes by itself after it', async () => {
    w = await startUnattendedWorld({ forge });
    const x = w;
    const resetAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 2 * 3600_000);
    x.agent('limit', { resetAt });
    await x.start();
    await x.drive(async () => (await x.run())?.progress.park !== undefined);
    const run = (await x.run())!;
    expect(run.state).toBe('paused');
    expect(run.progress.park).toMatchObject({
      reason: 'provider limit reached',
      resetAt: resetAt.toISOString(),
    });
    const [notice] = x.noticesOf('parked');
    expect(notice).toMatchObject({ resetAt: resetAt.toISOString(), command: '/blitz resume' });
    expect(notice?.sentence).toMatch(/resets at/);
    // An hour on, the limit has not lifted: nothing is probed, nothing starts.
    x.clock.advance(3600_000);
    for (let i = 0; i < 2; i++) await x.round();
    expect((await x.run())!.state).toBe('paused');
    x.agent();
    x.clock.advance(3600_000 + 31_000);
    await finishes(x);
    expect(x.noticesOf('parked')).toHaveLength(1);
    const attempts = await x.h.bot.runs.ledger.listByRun(run.id);
    expect(attempts.filter((a) => a.issue.number === 1)).toHaveLength(1);
  });
});

describe.each(['github', 'gitea'] as const)('hard blockers on %s', (forge) => {
  it('the forge answering 401 stops the run BLOCKED with one notice; once the credentials work again it resumes by itself and finishes', async () => {
    // Without the adapter's kept reads every pass asks the forge, as it does once they age out (a minute).
    w = await startUnattendedWorld({ forge, requestCache: false });
    const x = w;
    await x.start();
    await x.drive(async () => x.closes(1) === 1);
    x.forgeFails(401, 100_000);
    await x.drive(async () => (await x.run())?.state === 'blocked');
    const run = (await x.run())!;
    expect(run.progress.hardBlocker?.reason).toMatch(/refused the bot's credentials/);
    // The state lasts without a second notice, or any write, while the forge keeps refusing.
    for (let i = 0; i < 3; i++) {
      x.clock.advance(60_000);
      await x.round();
    }
    expect((await x.run())!.state).toBe('blocked');
    expect((await x.run())!.version).toBe(run.version);
    const blocked = x.noticesOf('blocked');
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toMatchObject({ command: '/blitz resume' });
    x.forgeHeals();
    await finishes(x);
    expect((await x.run())!.progress.hardBlocker).toBeUndefined();
    expect(x.noticesOf('blocked')).toHaveLength(1);
  });
});

describe.each(['github', 'gitea'] as const)('issues closed by hand on %s', (forge) => {
  it('an issue closed by hand mid-attempt stops its worker at the next pass; the rest of the milestone finishes', async () => {
    // No webhook for the close: the pass sees it when the adapter reads the milestone again (kept reads
    // off here; on the bot they age out by the next cron tick).
    w = await startUnattendedWorld({ forge, requestCache: false });
    const x = w;
    x.agent('stall');
    await x.start();
    await x.drive(async () => (await x.h.bot.runs.ledger.listOpen()).some((a) => a.issue.number === 1));
    const runId = (await x.run())!.id;
    x.closeByHand(1);
    x.agent();
    await x.round();
    const first = (await x.h.bot.runs.ledger.listByRun(runId)).find((a) => a.issue.number === 1);
    expect(first?.outcome).toBe('cancelled');
    // Whoever watches the run is told once (a warning naming the issue and how to run it again), and the
    // run goes on by itself.
    await finishes(x, [1, 2], [2], 1);
    expect(x.alerts()[0]).toMatchObject({ event: 'warning', issue: 1 });
    // Closed once, by the person; the bot never closed it again nor ran it again.
    expect((await x.h.bot.runs.ledger.listByRun(runId)).filter((a) => a.issue.number === 1)).toHaveLength(1);
  });
});

describe.each(['github', 'gitea'] as const)('closed issues’ workspaces at start on %s', (forge) => {
  it('a restart sweeps the worktree an issue closed by hand left behind, and nothing a worker holds', async () => {
    // #2's worker takes 15 s to push: the bot goes down and comes back while it works.
    w = await startUnattendedWorld({
      forge,
      requestCache: false,
      agentEnv: { FAKE_AGENT_DELAYS: JSON.stringify({ 'acme/app#2': 15_000 }) },
    });
    const x = w;
    const openOn = async (n: number) =>
      (await x.h.bot.runs.ledger.listOpen()).some((a) => a.issue.number === n);
    x.agent('stall');
    await x.start();
    await x.drive(() => openOn(1));
    const runId = (await x.run())!.id;
    const worktreesOf = (n: number) => x.worktreesLeft().filter((p) => new RegExp(`[/-]${n}-[a-z]`).test(p));
    x.closeByHand(1);
    x.agent('slow-push');
    await x.round();
    const first = (await x.h.bot.runs.ledger.listByRun(runId)).find((a) => a.issue.number === 1);
    expect(first?.outcome).toBe('cancelled');
    await x.drive(() => openOn(2));
    // The cancelled worker's worktree stays while the process lives…
    expect(worktreesOf(1)).toHaveLength(1);
    await x.h.restart();
    await x.round();
    // …and the first pass after a restart sweeps it, leaving the working one alone.
    expect(worktreesOf(1)).toEqual([]);
    expect(await openOn(2)).toBe(true);
    expect(worktreesOf(2)).toHaveLength(1);
    // The close was told once (its warning), across the restart too.
    await finishes(x, [1, 2], [2], 1);
    expect(x.alerts()[0]).toMatchObject({ event: 'warning', issue: 1 });
    const second = (await x.h.bot.runs.ledger.listByRun(runId)).filter((a) => a.issue.number === 2);
    expect(second.map((a) => a.outcome)).toEqual(['solved']);
  }, 120_000);
});

/** Attempts of the run whose lifetimes overlapped (two workers at once), as `#a+#b`. */
const overlaps = (
  attempts: readonly { issue: { number: number }; startedAt: string; endedAt?: string }[],
) => {
  const out: string[] = [];
  const end = (a: (typeof attempts)[number]) =>
    a.endedAt ? Date.parse(a.endedAt) : Number.POSITIVE_INFINITY;
  for (const [i, a] of attempts.entries())
    for (const b of attempts.slice(i + 1))
      if (Date.parse(a.startedAt) < end(b) && Date.parse(b.startedAt) < end(a))
        out.push(`#${a.issue.number}+#${b.issue.number}`);
  return out;
};

describe.each(['github', 'gitea'] as const)('the budget probe on %s', (forge) => {
  it('a failing probe runs one worker at a time, says so on the dashboard with one notice; once it answers, full speed and the milestone finishes', async () => {
    // Six issues: when the probe answers, one may be running alone already and may end before the
    // next pass; at least two more still wait, so the next dispatch overlaps either way.
    const numbers = [1, 2, 3, 4, 5, 6];
    const issues = numbers.map((n) => ({
      number: n,
      title: `Part ${n}`,
      body: `Add \`src/p${n}.ts\`.`,
    }));
    w = await startUnattendedWorld({
      forge,
      issues,
      probe: probeFailed,
      agentEnv: { FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '1500' },
    });
    const x = w;
    await x.start();
    await x.drive(() => numbers.reduce((n, i) => n + x.closes(i), 0) >= 2, 60_000);
    const runId = (await x.run())!.id;
    // Two issues through, one worker at a time: no two attempts ever ran together.
    expect(overlaps(await x.h.bot.runs.ledger.listByRun(runId))).toEqual([]);
    expect(x.dashboard()).toContain(
      'Budget probe failed (the probe exited with 1); one worker at a time until it answers.',
    );
    const [notice, ...more] = x.alerts();
    expect(more).toHaveLength(0);
    expect(notice).toMatchObject({ event: 'needs_person' });
    expect(notice?.sentence).toContain('the budget probe failed (the probe exited with 1)');
    // The probe answers again: the next wave goes out at full speed (two workers at once).
    x.probe.set(probeOk(2));
    await finishes(x, numbers);
    expect(overlaps(await x.h.bot.runs.ledger.listByRun(runId)).length).toBeGreaterThan(0);
    expect(x.dashboard()).toContain('Budget probe: up to 2 sessions.');
    expect(x.alerts()).toHaveLength(1);
  }, 120_000);

  it('a budget park with a reset time parks the run with one notice and resumes by itself once the probe allows', async () => {
    const resetAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 2 * 3600_000);
    w = await startUnattendedWorld({ forge, probe: { ...probePark, resetAt: resetAt.toISOString() } });
    const x = w;
    await x.start();
    await x.drive(async () => (await x.run())?.progress.park !== undefined);
    const run = (await x.run())!;
    expect(run.state).toBe('paused');
    expect(run.progress.park).toMatchObject({ kind: 'budget', resetAt: resetAt.toISOString() });
    const [notice, ...more] = x.alerts();
    expect(more).toHaveLength(0);
    expect(notice).toMatchObject({
      event: 'parked',
      command: '/blitz resume',
      resetAt: resetAt.toISOString(),
    });
    // The words a person reads name the reset time and that nobody has to resume it.
    const words = `resets at ${clock(resetAt.toISOString())}, and the run resumes by itself`;
    expect(notice?.sentence).toContain(words);
    expect(x.dashboard().replaceAll('&#58;', ':')).toContain(words);
    // Before the reset time nothing starts, whatever the probe would say.
    x.probe.set(probeOk());
    x.clock.advance(3600_000);
    for (let i = 0; i < 2; i++) await x.round();
    expect((await x.run())!.state).toBe('paused');
    expect(await x.h.bot.runs.ledger.listByRun(run.id)).toEqual([]);
    // After it the probe is asked, allows work, and the run goes on by itself.
    x.clock.advance(3600_000 + 31_000);
    await finishes(x);
    expect(x.alerts()).toHaveLength(1);
  }, 120_000);
});
