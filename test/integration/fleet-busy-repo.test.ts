// Seed 004: a repo with another active session gets its tickets last, and their prompts fence off
// that session's files. Here another (paused) fleet holds acme/app#9 in flight, whose body names
// `src/parser.ts`: the new fleet pilots acme/lib#1 first, and acme/app#1's prompt fences the file.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type FleetHarness, startFleetHarness } from '../support/fleet-harness.ts';

let h: FleetHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('fleet and a busy repository', () => {
  it('runs the busy repo last and fences the other run’s files in its prompts', async () => {
    h = await startFleetHarness({
      forge: 'github',
      issues: {
        app: [
          { number: 1, title: 'Tidy the CLI', body: 'Small change in `src/cli.ts`.' },
          { number: 9, title: 'Parser rewrite', body: 'Rewrite `src/parser.ts`.' },
        ],
        lib: [{ number: 1, title: 'Client: retry on 503' }],
      },
    });
    const x = h;
    const other = await x.runs.createRun({
      id: 'other-run',
      forge: 'github',
      repo: 'acme/app',
      kind: 'fleet',
      milestoneNumber: -9999,
      milestoneTitle: 'ticket fleet elsewhere',
      slug: 'fleet',
      options: { sender: 'alice', maxSessions: 1, tickets: [{ repo: 'acme/app', number: 9 }] },
      state: 'paused',
      integrationBranch: '',
    });
    if (!other.created) throw new Error('the other run was not created');
    await x.runs.upsertRunIssue('other-run', 'acme/app', 9, { state: 'working' });

    await x.comment('/ticket-fleet #1 acme/lib#1', 'alice');
    const mine = async () => {
      const run = (await x.runs.listRuns()).find((r) => r.kind === 'fleet' && r.id !== 'other-run');
      return run ? x.runs.ledger.listByRun(run.id) : [];
    };
    await x.drive(async () => (await mine()).length === 2);
    const attempts = await mine();
    expect(attempts.map((a) => `${a.issue.repo.name}#${a.issue.number}`)).toEqual(['lib#1', 'app#1']);
    const prompt = readFileSync(attempts[1]!.promptPath, 'utf8');
    expect(prompt).toContain('Do not touch `src/parser.ts` — issue #9 owns it');
    expect(readFileSync(attempts[0]!.promptPath, 'utf8')).not.toContain('src/parser.ts');
  }, 120_000);
});
