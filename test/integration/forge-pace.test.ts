// The run paces itself on the forge's rate limit as the fake GitHub reports it (`x-ratelimit-*` on every
// answer, per the REST description): with the core budget spent it starts no worker and says so on the
// dashboard, with the reset time; once the window has reset it dispatches again by itself, no person
// needed and never a silent stall. A refusal the headers did not foretell (a secondary limit: 403 with
// Retry-After) holds new workers the same way, says so, and lifts when the wait is over.
import { afterEach, describe, expect, it } from 'vitest';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import type { SeedIssue } from '../support/world.ts';

const issues: SeedIssue[] = [
  { number: 1, title: 'First', body: 'Add `src/a.ts`.' },
  { number: 2, title: 'Second', body: 'Add `src/b.ts`.' },
];

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('forge pace on GitHub', () => {
  it('holds new workers while the core budget is nearly spent, says why on the dashboard, and resumes after the reset', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    // Eleven core requests an hour: starting the run (permission, reaction, repository, config, branch,
    // dashboard …) spends them before the first wave; the last one says so on the dashboard, and the
    // next is refused, as GitHub does.
    h = await startBlitzHarness({ forge: 'github', issues, rateLimit: { core: 11, now } });
    const x = h;
    const dashboard = () =>
      x.world.commentsOn(x.repo, x.trigger).find((c) => c.body.includes('### blitz:'))?.body ?? '';
    await x.comment('/blitz M1', 'alice');
    await x.drive(async () => dashboard().includes('Slowed down'), 30_000);
    for (let i = 0; i < 3; i++) await x.round();

    expect(await x.bot.runs.ledger.listOpen()).toEqual([]);
    const run = (await x.liveRun())!;
    expect(run.state).toBe('running');
    expect(dashboard()).toMatch(
      // (markdownText escapes the brackets and the colon of the reason)
      /\*\*Slowed down:\*\* core rate limit nearly spent &#40;[01]\/11&#41;&#58; no new sessions until it resets in (59|60) min\./,
    );
    const pace = x.budget!.paceOf('github');
    expect(pace.sessionFactor).toBe(0);

    // An hour later the window has reset: the next reconcile dispatches without anyone asking.
    offset += 61 * 60_000;
    await x.drive(async () => (await x.bot.runs.ledger.listByRun(run.id)).length > 0, 30_000);
    expect((await x.liveRun())!.state).toBe('running');
    x.fakeGithub!.assertNoViolations();
  }, 90_000);

  it('a run whose budget is spent mid-run is refused, holds and says so, and completes after the resets', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    // Twenty core requests an hour: the run starts, and its budget runs out again and again on the way;
    // GitHub refuses past it (403, x-ratelimit-remaining 0) and performs nothing.
    h = await startBlitzHarness({
      forge: 'github',
      issues: [issues[0]!],
      maxSessions: 1,
      rateLimit: { core: 20, now },
    });
    const x = h;
    const dashboard = () =>
      x.world.commentsOn(x.repo, x.trigger).find((c) => c.body.includes('### blitz:'))?.body ?? '';
    const refusals = () => x.fakeGithub!.requests.filter((r) => r.status === 403).length;
    await x.comment('/blitz M1', 'alice');
    let resets = 0;
    let saidSo = 0;
    await x.drive(async () => {
      const run = await x.liveRun();
      if (run && ['done', 'blocked'].includes(run.state)) return true;
      // Held on a spent budget: the pace names it, and the dashboard's last word (its own update is
      // refused too) is the slowdown; the test moves the clock past the reset.
      const pace = x.budget!.paceOf('github');
      if (pace.sessionFactor === 0 && refusals() > resets) {
        expect(pace.reason).toMatch(/core rate limit nearly spent \(0\/20\)/);
        if (dashboard().includes('**Slowed down:**')) saidSo += 1;
        resets += 1;
        offset += 61 * 60_000;
      }
      return false;
    }, 80_000);

    expect((await x.liveRun())!.state).toBe('done');
    expect(x.repo.issues.get(1)!.state).toBe('closed');
    expect(resets).toBeGreaterThan(0);
    expect(saidSo).toBeGreaterThan(0);
    // No hot loop on a refusal: the held run waits for the reset instead of asking again and again.
    expect(refusals()).toBeLessThanOrEqual(3 * resets);
    x.fakeGithub!.assertNoViolations();
  }, 120_000);

  it('a secondary-limit refusal holds new workers until its Retry-After, says so, and then goes on', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    h = await startBlitzHarness({ forge: 'github', issues, rateLimit: { now } });
    const x = h;
    const dashboard = () =>
      x.world.commentsOn(x.repo, x.trigger).find((c) => c.body.includes('### blitz:'))?.body ?? '';
    // The run's first milestone read is refused; the client does not wait 10 minutes for it.
    x.fakeGithub!.failNext(1, {
      status: 403,
      headers: { 'retry-after': '600' },
      message: 'You have exceeded a secondary rate limit',
      match: /graphql/,
    });
    await x.comment('/blitz M1', 'alice');
    await x.drive(async () => dashboard().includes('Slowed down'), 30_000);
    for (let i = 0; i < 3; i++) await x.round();

    expect(x.fakeGithub!.requests.filter((r) => r.status === 403)).toHaveLength(1);
    const run = (await x.liveRun())!;
    expect(run.state).toBe('running');
    expect(await x.bot.runs.ledger.listByRun(run.id)).toEqual([]);
    expect(dashboard()).toMatch(
      /\*\*Slowed down:\*\* the forge refused a request at its secondary rate limit &#40;retry after 600 s&#41;&#58; no new sessions until it lifts in (9|10) min\./,
    );

    offset += 601_000;
    await x.drive(async () => (await x.bot.runs.ledger.listByRun(run.id)).length > 0, 30_000);
    expect((await x.liveRun())!.state).toBe('running');
  }, 90_000);
});
