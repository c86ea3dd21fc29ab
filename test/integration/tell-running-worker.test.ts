// `/blitz tell #n` to a worker that is running (issue 21): the message reaches its session at once, by
// a nudge that carries it: the runner stops the session and resumes it with the writer's words fenced
// as data. #1's worker would otherwise sit silent for an hour (the harness never nudges a stall), so
// only the tell can finish it; #2 runs beside it and never hears the message.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import { tempDir } from '../support/git.ts';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface Trace {
  args: string[];
  env: Record<string, string>;
  prompt?: string;
}

describe.each(['github', 'gitea'] as const)('/blitz tell to a running worker on %s', (forge) => {
  it('reaches the running session at once by a nudge that carries it', async () => {
    const trace = join(tempDir('blitz-trace-'), 'trace.jsonl');
    h = await startBlitzHarness({
      forge,
      issues: [
        { number: 1, title: 'Quiet: the model', body: 'Add `fake-1.txt`.' },
        { number: 2, title: 'Plain: the view', body: 'Add `fake-2.txt`.' },
      ],
      maxSessions: 2,
      agentEnv: {
        FAKE_AGENT_MODES: JSON.stringify({ 'acme/app#1': 'stall' }),
        FAKE_AGENT_RESUME_MODE: 'push',
        FAKE_AGENT_TRACE: trace,
      },
    });
    const x = h;
    await x.comment('/blitz M1', 'alice');
    const runs = () =>
      (existsSync(trace) ? readFileSync(trace, 'utf8') : '')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Trace);
    const started = (n: number) => runs().some((t) => t.env.BLITZ_ISSUE === String(n));
    await x.drive(() => started(1) && x.world.issue(x.repo, 2)?.state === 'closed');
    expect(x.world.issue(x.repo, 1)?.state).toBe('open');

    await x.comment('/blitz tell #1 name the file after the model', 'alice');
    await x.drive(() => x.world.issue(x.repo, 1)?.state === 'closed');

    const resumes = runs().filter((t) => t.args.includes('--resume'));
    expect(resumes).toHaveLength(1);
    expect(resumes[0]!.env.BLITZ_ISSUE).toBe('1');
    expect(resumes[0]!.prompt).toContain('sent you a message about this task');
    expect(resumes[0]!.prompt).toMatch(/```+untrusted-data\nalice: name the file after the model\n```+/);
    const answer = x.world
      .commentsOn(x.repo, x.trigger)
      .find((c) => c.author === x.world.botLogin && c.body.startsWith('Noted for #1'));
    expect(answer?.body).toContain('stops its session and resumes it with your message now');
    // Delivered: nothing of it waits for a later resume.
    const run = (await x.bot.runs.listRuns())[0]!;
    const attempt = (await x.bot.runs.ledger.listByRun(run.id)).find((a) => a.issue.number === 1)!;
    expect(attempt.feedbackResumes).toBe(1);
  }, 180_000);
});
