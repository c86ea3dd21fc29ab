// The notices a blitz run sends through the notifier port, end to end on the fake forge with real
// git and fake agents: started and shipped for a run that goes through, failed for an issue whose
// attempts are spent, each naming the run, the issue, one sentence and a link; a target that fails
// is shown on the dashboard.
import { afterEach, describe, expect, it } from 'vitest';
import type { Notifier, NotifyEvent, NotifyResult, RunNotice } from '../../src/ship/notice.ts';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';

const allEvents = new Set<NotifyEvent>([
  'started',
  'parked',
  'blocked',
  'needs_person',
  'shipped',
  'failed',
  'review_unclear',
]);

/** A notifier that keeps what it was sent and answers as told. */
const recorder = (target: string, answer: (n: RunNotice) => NotifyResult | undefined = () => undefined) => {
  const sent: RunNotice[] = [];
  const notifier: Notifier = {
    target,
    events: allEvents,
    async notify(notice) {
      sent.push(notice);
      return answer(notice) ?? { ok: true, target, attempts: 1 };
    },
  };
  return { sent, notifier };
};

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('run notices', () => {
  it('a run that ships sends started, then shipped, each with the run, the issue, a sentence and the run page', async () => {
    const chat = recorder('chat');
    const failing = recorder('pager', (n) => ({
      ok: false,
      target: 'pager',
      attempts: 3,
      error: `http://127.0.0.1:9 answered HTTP 503 (${n.event})`,
    }));
    h = await startBlitzHarness({
      forge: 'gitea',
      issues: [{ number: 1, title: 'The data model', body: 'Add `src/a.ts`.' }],
      notifiers: [chat.notifier, failing.notifier],
      publicUrl: 'https://blitz.example.com/',
    });
    const x = h;
    await x.comment('/blitz M1');
    await x.drive(async () => (await x.liveRun())?.state === 'done', 90_000);
    const run = (await x.liveRun())!;
    expect(chat.sent.map((n) => n.event)).toEqual(['started', 'shipped']);
    const [started, shipped] = chat.sent;
    expect(started).toMatchObject({
      repo: 'acme/app',
      run: { id: run.id, kind: 'blitz', title: 'M1' },
      issue: x.trigger,
      sentence: 'alice started a blitz of M1',
      url: `https://blitz.example.com/runs/${run.id}`,
    });
    expect(shipped).toMatchObject({
      run: { id: run.id },
      issue: x.trigger,
      issuesShipped: 1,
      path: 'local',
      // No preview ran, so nothing is live: the run's page, never the milestone PR standing in for one.
      url: `https://blitz.example.com/runs/${run.id}`,
    });
    expect(shipped!.sentence).toContain('shipped');
    // The failed target is kept on the run and shown on the dashboard; the other target still got both.
    expect(run.progress.notifyFailures).toEqual([
      { target: 'pager', error: expect.stringContaining('shipped: http://127.0.0.1:9 answered HTTP 503') },
    ]);
    const dashboard = x.world
      .commentsOn(x.repo, x.trigger)
      .map((c) => c.body)
      .find((b) => b.includes('Notifications that failed'));
    expect(dashboard).toContain('pager');
  });

  it('an issue the run gives up on after its attempts sends failed once, naming the issue', async () => {
    const chat = recorder('chat');
    h = await startBlitzHarness({
      forge: 'github',
      issues: [{ number: 1, title: 'Will fail', body: 'Add `src/a.ts`.' }],
      agentEnv: { FAKE_AGENT_MODE: 'fail' },
      notifiers: [chat.notifier],
    });
    const x = h;
    await x.comment('/blitz M1');
    await x.drive(() => chat.sent.some((n) => n.event === 'failed'), 60_000);
    await x.round();
    await x.round();
    const failed = chat.sent.filter((n) => n.event === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ issue: 1, run: { kind: 'blitz' } });
    expect(failed[0]!.sentence).toMatch(/^#1 failed after 3 attempts/);
    // No public address configured: no run page to link.
    expect(failed[0]!.url).toBeUndefined();
  });
});
