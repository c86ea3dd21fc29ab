// slow: each fault runs a whole milestone on the in-process bot with real git and fake agents (both forges).
// Faults of one issue's worker in an unattended run (issue 18): an issue that spends its per-issue cap,
// and an agent CLI that is not installed on the runner's host until a person installs it.
// Each ends in a named state, exactly one notification for it, a command that continues, and once the
// fault clears, the milestone finishing with every issue closed once and nothing of them left behind.
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/git.ts';
import { fakeAgent } from '../support/runner-harness.ts';
import {
  expectMilestoneFinished,
  startUnattendedWorld,
  type UnattendedWorld,
} from '../support/unattended-world.ts';

let w: UnattendedWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe.each(['github', 'gitea'] as const)('per-issue caps on %s', (forge) => {
  it('an issue that reaches its token cap is held with one notice (after one warning at 80 %); `/blitz retry #1` gives it a new allowance and the milestone finishes', async () => {
    // A failing worker reports 120 tokens (claude-style usage): 80 % of the cap, then past it.
    w = await startUnattendedWorld({
      forge,
      agentEnv: { FAKE_AGENT_FORMAT: 'claude' },
      runner: { maxTokensPerIssue: 150 },
    });
    const x = w;
    x.agent('fail');
    await x.start();
    await x.drive(async () => x.noticesOf('needs_person').length > 0, 60_000);
    const [warning] = x.noticesOf('warning');
    expect(warning).toMatchObject({ issue: 1 });
    expect(warning?.sentence).toContain('#1 has used 120 of 150 tokens (80 %)');
    const [held] = x.noticesOf('needs_person');
    expect(held).toMatchObject({ issue: 1, command: '/blitz retry #1' });
    expect(held?.sentence).toContain('#1 reached its cap (240 of 150 tokens (160 %)) and is held');
    // The named state lasts: no attempt more, nothing said again, and nothing written: the ticks of a
    // blocked run that stays blocked leave its version (no blocked → running → blocked on each tick).
    const before = (await x.run())!;
    const runId = before.id;
    expect(before.state).toBe('blocked');
    for (let i = 0; i < 3; i++) {
      x.clock.advance(60_000);
      await x.round();
    }
    const run = (await x.run())!;
    expect(run.state).toBe('blocked');
    expect(run.version).toBe(before.version);
    expect(run.progress.graph?.find((i) => i.number === 1)?.state).toBe('held');
    expect(run.progress.reason).toContain('it reached its per-issue cap');
    const ofIssue1 = async () =>
      (await x.h.bot.runs.ledger.listByRun(runId)).filter((a) => a.issue.number === 1);
    expect(await ofIssue1()).toHaveLength(2);
    expect(x.noticesOf('needs_person')).toHaveLength(1);
    expect(x.noticesOf('warning')).toHaveLength(1);
    // The fault clears; a writer gives the issue a new allowance.
    x.agent();
    await x.command('/blitz retry #1');
    await x.round();
    expect(x.replies().some((r) => r.startsWith('Retrying #1: it gets a new allowance'))).toBe(true);
    await expectMilestoneFinished(x);
    expect(await ofIssue1()).toHaveLength(3);
    expect(x.noticesOf('needs_person')).toHaveLength(1);
    expect(x.noticesOf('warning')).toHaveLength(1);
  });
});

// The fake model's price: 120 tokens of a failing attempt are $0.12. A solved attempt's cache tokens
// have no price here, so it is an unknown price, which no cap counts.
const costly = { model: 'fake-model', prices: { 'fake-model': { input: 1000, output: 1000 } } };

describe.each(['github', 'gitea'] as const)('cost caps on %s', (forge) => {
  it('an issue that reaches its cost cap is held with one notice (after one warning at 80 %); `/blitz retry #1` gives it a new allowance and the milestone finishes', async () => {
    w = await startUnattendedWorld({
      forge,
      agentEnv: { FAKE_AGENT_FORMAT: 'claude' },
      runner: { maxCostPerIssue: 0.15 },
      ...costly,
    });
    const x = w;
    x.agent('fail');
    await x.start();
    await x.drive(async () => x.noticesOf('needs_person').length > 0, 60_000);
    const [warning] = x.noticesOf('warning');
    expect(warning).toMatchObject({ issue: 1 });
    expect(warning?.sentence).toContain('#1 has used $0.12 of $0.15 (80 %)');
    const [held] = x.noticesOf('needs_person');
    expect(held).toMatchObject({ issue: 1, command: '/blitz retry #1' });
    expect(held?.sentence).toContain('#1 reached its cap ($0.24 of $0.15 (160 %)) and is held');
    const before = (await x.run())!;
    expect(before.state).toBe('blocked');
    for (let i = 0; i < 3; i++) {
      x.clock.advance(60_000);
      await x.round();
    }
    const run = (await x.run())!;
    expect(run.state).toBe('blocked');
    expect(run.version).toBe(before.version);
    expect(run.progress.graph?.find((i) => i.number === 1)?.state).toBe('held');
    expect(run.progress.reason).toContain('it reached its per-issue cap ($0.24 of $0.15');
    const ofIssue1 = async () =>
      (await x.h.bot.runs.ledger.listByRun(before.id)).filter((a) => a.issue.number === 1);
    expect(await ofIssue1()).toHaveLength(2);
    expect(x.noticesOf('needs_person')).toHaveLength(1);
    x.agent();
    await x.command('/blitz retry #1');
    await x.round();
    expect(x.replies().some((r) => r.startsWith('Retrying #1: it gets a new allowance'))).toBe(true);
    await expectMilestoneFinished(x);
    expect(await ofIssue1()).toHaveLength(3);
    expect(x.noticesOf('needs_person')).toHaveLength(1);
    expect(x.noticesOf('warning')).toHaveLength(1);
    // The finished run says what it cost: two failed attempts at $0.12 each; the solved ones' cache
    // tokens have no price here, so part of it is an unknown price, said as such.
    const [shipped] = x.noticesOf('shipped');
    expect(shipped?.sentence).toMatch(/; cost \$0\.24 \+ unknown price$/);
  });

  it('a run that reaches its cost cap holds every issue not running with one notice; `/blitz retry #1` gives its spend back and the milestone finishes', async () => {
    w = await startUnattendedWorld({
      forge,
      agentEnv: { FAKE_AGENT_FORMAT: 'claude' },
      runner: { maxCostPerRun: 0.15 },
      ...costly,
    });
    const x = w;
    x.agent('fail');
    await x.start();
    await x.drive(async () => x.noticesOf('needs_person').length > 0, 60_000);
    const [warning] = x.noticesOf('warning');
    expect(warning?.sentence).toContain('the run has used $0.12 of $0.15 (80 %) of its cost cap');
    const [held] = x.noticesOf('needs_person');
    expect(held).toMatchObject({ issue: 1, command: '/blitz retry #1' });
    expect(held?.sentence).toContain(
      'the run reached its cost cap ($0.24 of $0.15 (160 %)) and every issue not running is held',
    );
    const before = (await x.run())!;
    expect(before.state).toBe('blocked');
    for (let i = 0; i < 3; i++) {
      x.clock.advance(60_000);
      await x.round();
    }
    const run = (await x.run())!;
    expect(run.state).toBe('blocked');
    expect(run.version).toBe(before.version);
    expect(run.progress.reason).toContain('the run reached its cost cap ($0.24 of $0.15');
    const ledger = () => x.h.bot.runs.ledger.listByRun(before.id);
    expect(await ledger()).toHaveLength(2);
    expect(x.noticesOf('needs_person')).toHaveLength(1);
    x.agent();
    await x.command('/blitz retry #1');
    await x.round();
    expect(x.replies().some((r) => r.startsWith('Retrying #1'))).toBe(true);
    await expectMilestoneFinished(x);
    expect(x.noticesOf('needs_person')).toHaveLength(1);
  });
});

describe.each(['github', 'gitea'] as const)('no notify target on %s', (forge) => {
  it('the person who started the run is @mentioned once, where they started it, with the command that continues', async () => {
    w = await startUnattendedWorld({
      forge,
      noNotifyTargets: true,
      agentEnv: { FAKE_AGENT_FORMAT: 'claude' },
      runner: { maxTokensPerIssue: 150 },
    });
    const x = w;
    x.agent('fail');
    await x.start();
    const mentions = () => x.replies().filter((r) => r.startsWith('@alice'));
    await x.drive(async () => mentions().length > 0, 60_000);
    expect(mentions()).toEqual([
      '@alice, #1 reached its cap (240 of 150 tokens (160 %)) and is held; `/blitz retry #1` gives it a new allowance.',
    ]);
    // The 80 % warning asks nothing of anyone: it mentions nobody.
    expect(x.replies().filter((r) => r.includes('80 %'))).toEqual([]);
    for (let i = 0; i < 3; i++) {
      x.clock.advance(60_000);
      await x.round();
    }
    expect(mentions()).toHaveLength(1);
    x.agent();
    await x.command('/blitz retry #1');
    await expectMilestoneFinished(x);
    expect(mentions().filter((r) => r.includes('reached its cap'))).toHaveLength(1);
    // The milestone is ready: the person is told so, once, in the same place.
    expect(mentions().filter((r) => /^@alice \*\*blitz: .+ ready\*\*: /.test(r))).toHaveLength(1);
  });

  it('a run that stops BLOCKED files its blocker issue and tells the starter once where they started it', async () => {
    const cli = join(tempDir('missing-cli-'), 'not-installed-cli');
    w = await startUnattendedWorld({
      forge,
      noNotifyTargets: true,
      agentCommand: [cli, fakeAgent, '{prompt_file}'],
    });
    const x = w;
    await x.start();
    await x.drive(async () => (await x.run())?.progress.hardBlocker?.issue !== undefined);
    const blocker = x.world.issue(x.repo, (await x.run())!.progress.hardBlocker!.issue!)!;
    // The blocker issue mentions nobody: the comment below is the one @mention of this cause.
    expect(blocker.body).toMatch(/^The blitz of this milestone stopped: the agent CLI `/);
    expect(blocker.body).not.toContain('@alice');
    // The issue where alice started the run gets one comment: the cause, the blocker issue, the command.
    for (let i = 0; i < 2; i++) await x.round();
    const told = x.replies().filter((b) => b.startsWith('@alice') && b.includes('is BLOCKED'));
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(`the agent CLI \`${cli}\``);
    expect(told[0]).toContain(`(#${blocker.number})`);
    expect(told[0]).toContain('`/blitz resume`');
  });
});

describe.each(['github', 'gitea'] as const)('a missing agent CLI on %s', (forge) => {
  it('an agent CLI that is not installed stops the run BLOCKED naming the tool and host, with one notice and one blocker issue, never charged; once it is installed the next probe finds it and the milestone finishes', async () => {
    // The roster's command is a CLI that is not there yet (`fake-cli`, node under another name once installed).
    const bin = join(tempDir('missing-cli-'), 'bin');
    mkdirSync(bin, { recursive: true });
    const cli = join(bin, 'fake-cli');
    w = await startUnattendedWorld({
      forge,
      agentCommand: [cli, fakeAgent, '{prompt_file}'],
      runner: { environmentBackoff: { initialSeconds: 60, maxSeconds: 600 } },
    });
    const x = w;
    await x.start();
    await x.driveToState('blocked');
    const run = (await x.run())!;
    expect(run.progress.hardBlocker?.reason).toBe(
      `the agent CLI \`${cli}\` (roster entry fake) is not installed on the bot's host`,
    );
    const [notice] = x.noticesOf('blocked');
    expect(notice).toMatchObject({ command: '/blitz resume' });
    expect(notice?.sentence).toContain(`\`${cli}\``);
    await x.drive(async () => (await x.run())?.progress.hardBlocker?.issue !== undefined);
    const blockerIssue = (await x.run())!.progress.hardBlocker!.issue!;
    expect(x.world.issue(x.repo, blockerIssue)?.title).toContain('is BLOCKED');
    // Blocked means blocked: rounds before the wait is over start nothing, say nothing more and write nothing.
    const ledger = () => x.h.bot.runs.ledger.listByRun(run.id);
    const version = (await x.run())!.version;
    for (let i = 0; i < 3; i++) await x.round();
    expect(await ledger()).toHaveLength(1);
    expect((await x.run())!.version).toBe(version);
    // The wait passes: the probe (the issue's next attempt) finds it still missing; the wait doubles.
    x.clock.advance(61_000);
    await x.drive(async () => (await ledger()).length === 2 && (await ledger()).every((a) => a.outcome));
    for (let i = 0; i < 2; i++) await x.round();
    expect((await x.run())!.state).toBe('blocked');
    x.clock.advance(61_000);
    for (let i = 0; i < 2; i++) await x.round();
    expect(await ledger()).toHaveLength(2);
    // A person installs it: the next probe runs the worker, the blocker issue is closed, the run goes on.
    symlinkSync(process.execPath, cli);
    x.clock.advance(60_000);
    await expectMilestoneFinished(x);
    expect((await x.run())!.progress.hardBlocker).toBeUndefined();
    expect(x.world.issue(x.repo, blockerIssue)?.state).toBe('closed');
    expect(x.noticesOf('blocked')).toHaveLength(1);
    // Never charged: the misses are environment failures, not the issue's failures.
    const misses = (await ledger()).filter((a) => a.outcome === 'environment_failure');
    expect(misses).toHaveLength(2);
  });
});
