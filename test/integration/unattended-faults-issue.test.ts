// slow: each fault runs a whole milestone on the in-process bot with real git and fake agents (both forges).
// Faults of one issue's worker in an unattended run (issue 18): an issue that spends its per-issue cap.
// Each ends in a named state, exactly one notification for it, a command that continues, and once the
// fault clears, the milestone finishing with every issue closed once and nothing of them left behind.
import { afterEach, describe, expect, it } from 'vitest';
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
    // The named state lasts: no attempt more, nothing said again.
    const runId = (await x.run())!.id;
    for (let i = 0; i < 3; i++) await x.round();
    const run = (await x.run())!;
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
