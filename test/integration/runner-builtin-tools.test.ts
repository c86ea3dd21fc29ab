// The built-in adapters against fake CLIs of the same name on PATH: claude gets its prompt on stdin
// and reports usage in stream JSON; aider only commits, so the runner pushes its branch.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rosterEntrySchema } from '../../src/config/blitz-config.ts';
import { createOrigin, originFile, tempDir } from '../support/git.ts';
import { attemptJob, fakeBin, makeHarness, settle } from '../support/runner-harness.ts';

describe('built-in tool adapters', () => {
  it('claude: prompt on stdin, scoped permissions, usage and FINAL REPORT read from stream JSON', async () => {
    const origin = await createOrigin();
    const trace = join(tempDir(), 'trace.jsonl');
    const h = makeHarness({ pathPrepend: [fakeBin] });
    const entry = rosterEntrySchema.parse({
      name: 'sonnet',
      tool: 'claude',
      model: 'sonnet',
      roles: ['fleet'],
      tiers: ['execution'],
      env: {
        FAKE_AGENT_TRACE: trace,
        FAKE_AGENT_MODE: 'uncertain',
        FAKE_AGENT_UNCERTAINTY: 'Is 204 right for HEAD?',
      },
    });
    const r = await h.runner.execute(attemptJob(origin.url, entry, { branchStyle: 'fleet' }));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done).toMatchObject({
      outcome: 'solved',
      branch: 'ticket/7-headless',
      tool: 'claude',
      model: 'sonnet',
    });
    expect(done.tokens).toEqual({ input: 1200, output: 340, cache: 50, cacheWrite: 0 });
    expect(done.finalReport?.uncertainties).toEqual(['Is 204 right for HEAD?']);
    const call = JSON.parse(readFileSync(trace, 'utf8').split('\n')[0]!);
    expect(call.stdinFirstLine).toContain('You are working on issue #7 of acme/app');
    expect(call.argv).toEqual(
      expect.arrayContaining(['-p', '--permission-mode', 'acceptEdits', '--model', 'sonnet']),
    );
  });

  it('aider: reads --message-file, commits without pushing, and the runner pushes the branch', async () => {
    const origin = await createOrigin();
    const h = makeHarness({ pathPrepend: [fakeBin] });
    const entry = rosterEntrySchema.parse({
      name: 'local',
      tool: 'aider',
      provider: 'ollama',
      model: 'qwen2.5-coder',
      roles: ['blitz'],
      tiers: ['execution'],
    });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done.outcome).toBe('solved');
    expect(done.argvRedacted).toEqual(
      expect.arrayContaining(['--message-file', done.promptPath, '--model', 'ollama_chat/qwen2.5-coder']),
    );
    expect(await originFile(origin.url, done.branch, 'fake-7.txt')).toContain('done by fake agent');
  });
});
