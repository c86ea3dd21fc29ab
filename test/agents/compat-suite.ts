// The compatibility scenarios, run once per real agent CLI: one real Runner attempt each, on a real
// bare origin, clone and attempt repository, with the CLI inside the workers' bubblewrap sandbox
// talking to the loopback mock model. What a scenario
// proves is what the bot relies on: the argv starts the tool headless, a pushed commit ends the
// attempt solved, a nudge resumes the same session, the tokens recorded are the tokens the model
// reported, an unreachable endpoint ends the attempt as an environment failure long before its
// timeout, and a branch pushed without a commit is not solved. In the tier's offline mode each tool's
// file first proves it has no route out but loopback (offline.ts).
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../../src/runner/types.ts';
import { createOrigin, gitIn, originFile, tempDir } from '../support/git.ts';
import { attemptJob, type Harness, makeHarness, settle } from '../support/runner-harness.ts';
import { type AgentTool, agentEntry, installed } from './agent-clis.ts';
import { type MockModel, type Step, startMockModel } from './mock-model-server.ts';
import { OFFLINE_ENV, offlineCheck, REGISTRY } from './offline.ts';

const BRANCH = 'ticket/7-headless';
const commitAndPush = (file: string): Step => ({
  shell: `echo "written by the agent" > ${file} && git add ${file} && git commit -qm "Add ${file}" && git push -q origin HEAD`,
});
const finalReport: Step = {
  text: 'FINAL REPORT\nPR: none — branch pushed\nTESTS: none\nREVIEW: none\nUNCERTAINTIES:\n- none\nOUT-OF-SCOPE BUGS:\n- none\nSTATUS: done — the file is committed and pushed',
};

/** A real CLI needs minutes at worst on a busy machine; the attempt itself never times out here. */
const SETTLE_MS = 300_000;
const TEST_MS = 400_000;

/** Removes `dir`; a CLI may leave read-only directories (a cache), which are made writable first. */
const removeTree = (dir: string): void => {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    const walk = (d: string): void => {
      chmodSync(d, 0o700);
      for (const e of readdirSync(d, { withFileTypes: true }))
        if (e.isDirectory() && !e.isSymbolicLink()) walk(join(d, e.name));
    };
    walk(dir);
    rmSync(dir, { recursive: true, force: true });
  }
};

export const compatSuite = (tool: AgentTool): void => {
  const cli = installed(tool);
  let mock: MockModel | undefined;
  // The folders each attempt makes (its workspace, origin and config dir), removed when it ends: a
  // tier run leaves nothing in /tmp, and only its own folders go, never another test's.
  const made: string[] = [];
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
    for (const dir of made.splice(0)) removeTree(dir);
  });

  const attempt = async (
    turns: Step[][] | 'endpoint down' | 'spend limit',
    maxNudges = 0,
  ): Promise<{ h: Harness; done: AttemptRecord; log: string; originUrl: string }> => {
    if ('missing' in cli) throw new Error(`${tool} is not installed: ${cli.missing}`);
    let url = 'http://127.0.0.1:9';
    if (turns === 'spend limit') {
      mock = await startMockModel({ turns: [], spendLimit: true });
      url = mock.url;
    } else if (turns !== 'endpoint down') {
      mock = await startMockModel({ turns, usage: { input: 1234, output: 56 } });
      url = mock.url;
    } else {
      // A port that was just free: nothing listens there, so every connection is refused.
      const probe = await startMockModel({ turns: [] });
      url = probe.url;
      await probe.close();
    }
    const origin = await createOrigin();
    made.push(origin.root);
    // In the workers' sandbox, as a default host runs them: the CLI, its install and its config file
    // must be reachable from inside.
    const h = makeHarness({ pathPrepend: cli.pathPrepend, runner: { maxNudges, sandbox: 'bubblewrap' } });
    made.push(h.workspace);
    const config = tempDir(`blitz-${tool}-config-`);
    made.push(config);
    const r = await h.runner.execute(
      attemptJob(origin.url, agentEntry(tool, url, cli.env, config), { branchStyle: 'fleet' }),
    );
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id, SETTLE_MS);
    const log = readFileSync(done.logPath, 'utf8');
    return { h, done, log, originUrl: origin.url };
  };

  const explain = (done: AttemptRecord, log: string): string =>
    `outcome ${done.outcome}: ${done.failureSummary ?? ''}\n--- worker log (end) ---\n${log.slice(-4000)}`;

  describe(`${tool} ${'missing' in cli ? '(not installed)' : cli.version}`, () => {
    it.runIf(process.env[OFFLINE_ENV] === '1')(
      `runs offline: loopback is the only interface and ${REGISTRY.host} is out of reach`,
      async () => {
        // Else an offline pass could be one with the registry in reach.
        const check = await offlineCheck();
        expect(check).toMatchObject({ offline: true });
      },
      TEST_MS,
    );

    it(
      'solves: commits, pushes, reports, and the tokens recorded are those the model reported',
      async () => {
        const { done, log, originUrl } = await attempt([[commitAndPush('agent.txt'), finalReport]]);
        expect(done.outcome, explain(done, log)).toBe('solved');
        expect(await originFile(originUrl, BRANCH, 'agent.txt')).toContain('written by the agent');
        expect(done.tokens).toMatchObject(mock!.reported());
        expect(done.finalReport?.status).toMatch(/^done/);
        expect(done.sessionId).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(mock!.unexpected).toEqual([]);
        if (tool === 'opencode') {
          // opencode read its seeded config directory (scripts/seed-runtime.ts), so it made none in the
          // attempt's HOME to download @opencode-ai/plugin into.
          const home = join(dirname(done.exitPath), 'home');
          expect(existsSync(join(home, '.config', 'opencode')), 'opencode made a config dir in HOME').toBe(
            false,
          );
        }
      },
      TEST_MS,
    );

    it(
      'is nudged after stopping early, resumes the same session, and solves',
      async () => {
        const { done, log, h } = await attempt(
          [[{ text: 'I looked around and will stop here.' }], [commitAndPush('resumed.txt'), finalReport]],
          1,
        );
        expect(done.outcome, explain(done, log)).toBe('solved');
        expect(done.nudges).toBe(1);
        // The model saw the task again after the nudge only because the CLI resumed that conversation.
        const afterNudge = mock!.requests.filter((q) => q.turn === 1);
        expect(afterNudge.length).toBeGreaterThan(0);
        expect(afterNudge.every((q) => q.carriesTask)).toBe(true);
        expect(done.tokens).toMatchObject(mock!.reported());
        expect(h.events.filter((e) => e.type === 'attempt.resumed')).toHaveLength(1);
        const resumedArgv = done.argvRedacted.join(' ');
        expect(resumedArgv).toContain(done.sessionId!);
        expect(mock!.unexpected).toEqual([]);
      },
      TEST_MS,
    );

    it(
      'with the endpoint down ends as an environment failure, not at the timeout',
      async () => {
        const { done, log } = await attempt('endpoint down');
        // The harness clock never moves, so only the failure itself (never the timeout) can end it.
        expect(done.outcome, explain(done, log)).toBe('environment_failure');
        expect(done.failureSummary).toMatch(/model endpoint unreachable/);
      },
      TEST_MS,
    );

    it(
      'out of credit or quota ends as an environment failure, not at the timeout',
      async () => {
        const { done, log } = await attempt('spend limit');
        expect(done.outcome, explain(done, log)).toBe('environment_failure');
        expect(done.failureSummary).toMatch(/provider limit reached/);
      },
      TEST_MS,
    );

    it(
      'pushing the branch without a commit is not solved',
      async () => {
        const { done, log, originUrl } = await attempt([[{ shell: 'git push -q origin HEAD' }, finalReport]]);
        // From the sandbox the worker's own push reaches no origin (it holds no credential, and a path
        // origin is not in its view): the branch is absent there, or at main's commit if it got there.
        const onOrigin = await gitIn(
          originUrl,
          'for-each-ref',
          '--format=%(objectname)',
          `refs/heads/${BRANCH}`,
        );
        expect(['', await gitIn(originUrl, 'rev-parse', 'refs/heads/main')]).toContain(onOrigin);
        expect(done.outcome, explain(done, log)).not.toBe('solved');
        expect(done.outcome).toBe('stalled');
      },
      TEST_MS,
    );
  });
};
