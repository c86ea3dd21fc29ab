// Slow for a reason: a two-repository ticket fleet with conflicts, reviews and merges, on real git.
// Acceptance: `/ticket-fleet` over two repositories on the contract-checked fake forge, real bare
// origins and fake agents. acme/app#1 and #2 both rewrite README's first line (they conflict with each
// other), acme/app#3's tests fail, acme/lib#1 reports an uncertainty, acme/app#5 is only behind when
// merged. Every PR gets exactly one review comment (a second `/review` edits it); the uncertainty
// reaches the triggering issue; nothing merges before `/merge`; a read-only `/merge` is refused; after
// `/merge` the conflicting PR is brought up to date by resuming its worker in its worktree, then
// merged, and its ticket closed exactly once.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { reviewMarkerTag } from '../../src/review/index.ts';
import { type FleetHarness, startFleetHarness } from '../support/fleet-harness.ts';
import { originFile } from '../support/git.ts';

const uncertainty = 'Should the retry limit be an env var that must be set in production?';
const agentEnv = {
  FAKE_AGENT_MODES: JSON.stringify({
    'acme/app#1': 'conflict',
    'acme/app#2': 'conflict',
    'acme/app#3': 'fail',
    'acme/lib#1': 'uncertain',
  }),
  FAKE_AGENT_RESUME_MODES: JSON.stringify({ 'acme/app#1': 'merge-base', 'acme/app#2': 'merge-base' }),
  FAKE_AGENT_UNCERTAINTY: uncertainty,
};
const issues = {
  app: [
    { number: 1, title: 'README: say what the app does', body: 'Rewrite the README title.' },
    { number: 2, title: 'README: name the project', body: 'Put the project name in the README title.' },
    { number: 3, title: 'Parser: accept empty input', body: 'The parser throws on an empty string.' },
    { number: 5, title: 'Docs: add a changelog', body: 'Start CHANGELOG.md.' },
  ],
  lib: [{ number: 1, title: 'Client: retry on 503', body: 'Retry a few times on 503.' }],
};

let h: FleetHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const prOf = async (x: FleetHarness, repo: string, n: number) => {
  const run = await x.fleetRun();
  if (!run) {
    if (process.env.FLEET_DEBUG)
      console.log(
        JSON.stringify(await x.store.listIntents()),
        x.world.commentsOn(x.repos.app, x.trigger).map((c) => c.body),
      );
    return undefined;
  }
  return (await x.runs.listRunIssues(run.id)).find((r) => r.repo === repo && r.number === n)?.prNumber;
};
const reviewComments = (x: FleetHarness, repo: 'app' | 'lib', pr: number) =>
  x.world.commentsOn(x.repos[repo], pr).filter((c) => c.body.includes(reviewMarkerTag));

describe.each(['github', 'gitea'] as const)('ticket fleet end to end on %s', (forge) => {
  it('runs five tickets in two repos (two conflicting, one failing, one uncertain), reviews every PR once, relays the uncertainty and merges only on a person’s word', async () => {
    h = await startFleetHarness({ forge, issues, agentEnv });
    const x = h;
    await x.comment('/ticket-fleet #1 #2 #3 #5 acme/lib#1 acme/app#2', 'alice');
    const pulls = async () => [
      await prOf(x, 'acme/app', 1),
      await prOf(x, 'acme/app', 2),
      await prOf(x, 'acme/lib', 1),
      await prOf(x, 'acme/app', 5),
    ];
    await x.drive(async () => {
      const [a1, a2, l1, a5] = await pulls();
      if (a1 === undefined || a2 === undefined || l1 === undefined || a5 === undefined) return false;
      const failed = (await x.runs.ledger.listByRun((await x.fleetRun())!.id)).some(
        (a) => a.issue.repo.name === 'app' && a.issue.number === 3 && a.outcome === 'unsolved',
      );
      return (
        failed &&
        reviewComments(x, 'app', a1).length === 1 &&
        reviewComments(x, 'app', a2).length === 1 &&
        reviewComments(x, 'lib', l1).length === 1 &&
        reviewComments(x, 'app', a5).length === 1
      );
    });
    const [a1, a2, l1, a5] = (await pulls()).map((n) => n ?? 0) as [number, number, number, number];
    // The pilot ran alone: every other worker started after it had finished.
    const [pilot, ...rest] = await x.runs.ledger.listByRun((await x.fleetRun())!.id);
    expect(`${pilot!.issue.repo.name}#${pilot!.issue.number}`).toBe('app#1');
    for (const a of rest) expect(Date.parse(a.startedAt)).toBeGreaterThanOrEqual(Date.parse(pilot!.endedAt!));
    const onTrigger = () => x.world.commentsOn(x.repos.app, x.trigger).map((c) => c.body);
    // The duplicate ref was named in the reply; each PR says which ticket it fixes, into the default branch.
    expect(onTrigger().some((b) => b.includes('#2: skipped, it is named twice'))).toBe(true);
    for (const [repo, pr, n] of [
      ['app', a1, 1],
      ['app', a2, 2],
      ['lib', l1, 1],
      ['app', a5, 5],
    ] as const) {
      const pull = x.repos[repo].issues.get(pr!)!;
      expect(pull.body).toContain(`Fixes #${n}`);
      expect(pull.pull?.head).toBe(`ticket/${n}-headless`);
      expect(pull.pull?.base).toBe('main');
    }
    // No PR for the ticket whose tests failed; the scoreboard says it failed.
    expect(await prOf(x, 'acme/app', 3)).toBeUndefined();
    await x.round();
    const board = () => onTrigger().find((b) => b.includes('## Ticket fleet'))!;
    expect(board()).toMatch(/acme\/lib#1/);
    expect(board()).toMatch(/#3 .*failed/);
    // The uncertainty reached the triggering issue, in the activation bucket.
    const relay = onTrigger().find((b) => b.includes('reports decisions for a person'));
    expect(relay).toContain('Activation steps');
    expect(relay).toContain('retry limit');
    // Nothing merged yet: no one said the word.
    expect(x.world.count('merge')).toBe(0);

    // A read-only person's /merge is refused at the door, and nothing merges.
    await x.comment('/merge', 'rita', a1, x.repos.app);
    await x.round();
    expect(x.world.count('merge')).toBe(0);
    expect(x.world.commentsOn(x.repos.app, a1).some((c) => c.body.includes('@rita'))).toBe(true);
    // /merge on something the fleet did not open is refused in words.
    await x.comment('/merge', 'alice', x.trigger, x.repos.app);
    await x.round();
    expect(
      onTrigger().some((b) => b.startsWith('Nothing was merged') && b.includes('only merges those')),
    ).toBe(true);
    expect(x.world.count('merge')).toBe(0);

    // A second /review on a PR edits its one review comment.
    const edits = x.world.count('edit_comment', 'acme/app', a1);
    await x.comment('/review', 'alice', a1, x.repos.app);
    await x.round();
    expect(reviewComments(x, 'app', a1)).toHaveLength(1);
    expect(x.world.count('edit_comment', 'acme/app', a1)).toBeGreaterThan(edits);

    // /merge the first README ticket: it merges clean and its ticket closes once.
    await x.comment('/merge', 'alice', a1, x.repos.app);
    await x.drive(() => x.world.issue(x.repos.app, 1)?.state === 'closed');
    expect(x.world.count('merge', 'acme/app', a1)).toBe(1);
    expect(x.repos.app.issues.get(a2)!.pull!.merged).toBe(false);

    // /merge the second: it conflicts now; its worker is resumed in its worktree to merge main in.
    await x.comment('/merge', 'alice', a2, x.repos.app);
    await x.drive(() => x.world.issue(x.repos.app, 2)?.state === 'closed');
    const attempts = (await x.runs.ledger.listByRun((await x.fleetRun())!.id)).filter(
      (a) => a.issue.repo.name === 'app' && a.issue.number === 2,
    );
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.survived).toBeDefined();
    expect(x.world.count('merge', 'acme/app', a2)).toBe(1);
    expect(x.world.count('close', 'acme/app', 2)).toBe(1);
    expect(x.world.count('close', 'acme/app', 1)).toBe(1);
    const readme = await originFile(x.origins.app.bareDir, 'main', 'README.md');
    expect(readme).toContain('# rewritten for #1');
    expect(readme).toContain('# rewritten for #2');
    expect(readme).not.toMatch(/^(<{7}|>{7}|={7})/m);
    // The merged branches are gone; the lib PR still waits for its word.
    expect(await x.repos.app.git.resolve('ticket/2-headless')).toBeUndefined();
    expect(x.repos.lib.issues.get(l1)!.pull!.merged).toBe(false);
    expect(x.world.issue(x.repos.lib, 1)?.state).toBe('open');

    // The changelog PR is only behind main now: its branch is brought up to date, then merged.
    await x.comment('/merge', 'alice', a5, x.repos.app);
    await x.drive(() => x.world.issue(x.repos.app, 5)?.state === 'closed');
    if (forge === 'github') expect(x.world.count('update_branch', 'acme/app', a5)).toBe(1);
    expect(x.world.count('merge', 'acme/app', a5)).toBe(1);

    // `/ticket-fleet merge acme/lib#N` from the triggering issue merges across repos; the run then
    // ends (the failed ticket needs a person) with the consolidated summary on the scoreboard.
    await x.comment(`/ticket-fleet merge acme/lib#${l1}`, 'alice');
    await x.drive(async () => !['running', 'planning'].includes((await x.fleetRun())!.state));
    expect(x.world.count('close', 'acme/lib', 1)).toBe(1);
    expect((await x.fleetRun())!.state).toBe('blocked');
    // The run's end merged what it taught about the roster into the model notes, its failure included.
    const notes = readFileSync(x.notesPath, 'utf8');
    expect(notes).toContain(`runs: ${(await x.fleetRun())!.id}=`);
    expect(notes).toContain('- `fake` · subtle: solved 4/5');
    expect(board()).toContain('### Summary');
    expect(board()).toContain('- tickets: 5 run, 4 merged, 1 failed, 1 skipped');
    expect(x.world.count('merge')).toBe(4);
    if (process.env.FLEET_DEBUG) console.log(onTrigger().join('\n-----\n'));
  }, 240_000);
});
