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
    // Eight core requests an hour: starting the run (permission, reaction, repository, config, branch,
    // dashboard …) spends them before the first wave.
    h = await startBlitzHarness({ forge: 'github', issues, rateLimit: { core: 8, now } });
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
      /\*\*Slowed down:\*\* core rate limit nearly spent &#40;0\/8&#41;&#58; no new sessions until it resets in (59|60) min\./,
    );
    const pace = x.budget!.paceOf('github');
    expect(pace.sessionFactor).toBe(0);

    // An hour later the window has reset: the next reconcile dispatches without anyone asking.
    offset += 61 * 60_000;
    await x.drive(async () => (await x.bot.runs.ledger.listByRun(run.id)).length > 0, 30_000);
    expect((await x.liveRun())!.state).toBe('running');
  }, 90_000);

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
