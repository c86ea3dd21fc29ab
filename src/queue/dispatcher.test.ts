import { describe, expect, it } from 'vitest';
import { createQueueDispatch } from '../compose/queue-dispatch.ts';
import { silentLogger } from '../observability/logger.ts';
import type { AttemptLedger, AttemptRecord, RunnerJob } from '../runner/types.ts';
import type { RunStore } from '../store/run-store.ts';
import { createDispatcher, type DispatchWrites, onAttemptHost } from './dispatcher.ts';
import { InProcessQueue } from './in-process-queue.ts';
import { isRemoteAttempt, localOnlyLedger, startLocalConsumer } from './local-consumer.ts';

const job = (n: number): Extract<RunnerJob, { kind: 'attempt' }> => ({
  kind: 'attempt',
  runId: 'run-1',
  issue: { repo: { owner: 'o', name: 'r' }, number: n },
  title: `issue ${n}`,
  body: '',
  branchStyle: 'blitz',
  runSlug: 'm1',
  baseBranch: 'blitz/m1',
  cloneUrl: 'file:///nowhere',
  entry: {
    name: 'noop',
    tool: 'custom',
    roles: ['blitz'],
    tiers: ['execution'],
    command: ['true'],
    resume: ['true'],
  },
  tier: 'execution',
});

const rowsStore = () => {
  const rows: string[] = [];
  const writes: DispatchWrites = {
    async upsertRunIssue(runId, repo, number, patch) {
      rows.push(`${runId} ${repo}#${number} ${patch.state}`);
      return { runId, repo, number, state: patch.state ?? 'ready', attempts: 1 } as never;
    },
  };
  return { rows, store: writes as unknown as RunStore };
};

describe('dispatch through the job queue', () => {
  it('enqueues an attempt once per run, issue and try: a twin from another replica records nothing', async () => {
    const queue = new InProcessQueue();
    const { rows, store } = rowsStore();
    const queues = new Set<string>();
    const d = createDispatcher({ queue, store, localHost: 'bot', onQueue: (q) => queues.add(q) });
    expect(
      await d.attempt(job(1), 1, (w) => w.upsertRunIssue('run-1', 'o/r', 1, { state: 'dispatched' })),
    ).toBe(true);
    expect(
      await d.attempt(job(1), 1, (w) => w.upsertRunIssue('run-1', 'o/r', 1, { state: 'dispatched' })),
    ).toBe(false);
    expect(rows).toEqual(['run-1 o/r#1 dispatched']);
    expect([...queues]).toEqual(['attempt/blitz/o/r']);
    const claimed = await queue.claim([...queues], 'bot');
    expect(claimed?.payload).toMatchObject({ kind: 'attempt', issue: { number: 1 } });
    expect(await queue.claim([...queues], 'bot')).toBeNull();
  });

  it('sends a resume to the runner whose receipt holds the attempt, and to the bot itself otherwise', async () => {
    const queue = new InProcessQueue();
    const { store } = rowsStore();
    const registry = {
      getReceipt: async (id: string) => (id === 'remote-1' ? ({ runnerName: 'r-east' } as never) : undefined),
    };
    const d = createDispatcher({ queue, store, registry, localHost: 'bot' });
    await d.toHost({ kind: 'resume', attemptId: 'remote-1', reason: 'interrupted' }, 'remote-1');
    await d.toHost({ kind: 'cancel', attemptId: 'local-1' }, 'local-1');
    expect((await queue.claim(['host/r-east'], 'r-east'))?.payload).toMatchObject({ attemptId: 'remote-1' });
    expect((await queue.claim(['host/bot'], 'bot'))?.payload).toMatchObject({ attemptId: 'local-1' });
  });

  it('runs queued jobs with the local runner and completes them; a job the runner refuses is failed', async () => {
    const queue = new InProcessQueue();
    const { store } = rowsStore();
    const queues = new Set<string>();
    const d = createDispatcher({ queue, store, localHost: 'bot', onQueue: (q) => queues.add(q) });
    const ran: number[] = [];
    const runner = {
      limit: () => ({ limit: 1, contended: false }),
      async execute(j: RunnerJob) {
        if (j.kind !== 'attempt') throw new Error('only attempts here');
        if (j.issue.number === 2) throw new Error('clone failed');
        ran.push(j.issue.number);
        return { kind: 'attempt', attempt: { id: `a-${j.issue.number}` } } as never;
      },
    };
    const first = await queue.enqueue('x', {}); // a foreign queue the consumer does not pull
    const consumer = startLocalConsumer({
      queue,
      runner,
      holder: 'bot',
      hostQueue: 'host/bot',
      queues,
      logger: silentLogger(),
      pollMs: 60_000,
    });
    try {
      await d.attempt(job(1), 1, async () => undefined);
      await d.attempt(job(2), 1, async () => undefined);
      expect(await consumer.drain()).toBe(2);
      expect(ran).toEqual([1]);
      // The refused job waits for its retry backoff: nothing is left to claim now.
      expect(await queue.claim(['attempt/blitz/o/r'], 'other')).toBeNull();
      expect((await queue.get({ queue: 'x', id: first! }))?.state).toBe('queued');
    } finally {
      await consumer.stop();
    }
  });

  it('keeps attempts reported by remote runners out of the local supervisor', async () => {
    const open = [
      { id: 'l', exitPath: '/w/l.exit' },
      { id: 'r', exitPath: 'runner://east/w/r.exit' },
      { id: 'mine', exitPath: '/w/mine.exit', host: 'm1' },
      { id: 'theirs', exitPath: '/w/theirs.exit', host: 'm2' },
    ];
    const ledger = { listOpen: async () => open } as unknown as AttemptLedger;
    const ids = (await localOnlyLedger(ledger, 'm1').listOpen()).map((r: AttemptRecord) => r.id);
    expect(ids).toEqual(['l', 'mine']);
    expect(isRemoteAttempt({ exitPath: 'runner://east/x' })).toBe(true);
  });

  it('runs the cron reconcile once per slot across two replicas, and again in the next slot', async () => {
    const queue = new InProcessQueue();
    const { store } = rowsStore();
    const runner = { execute: async () => ({}) as never, limit: () => ({ limit: 1, contended: false }) };
    const registry = { getReceipt: async () => undefined };
    const [a, b] = ['bot-a', 'bot-b'].map((name) =>
      createQueueDispatch({
        queue,
        registry,
        store,
        runner,
        logger: silentLogger(),
        name,
        localRunner: false,
      }),
    );
    let ticks = 0;
    const tick = async () => {
      ticks++;
    };
    const slot = new Date('2026-01-01T00:01:05Z');
    const ran = await Promise.all([a!.cronTick(tick, 60, slot), b!.cronTick(tick, 60, slot)]);
    expect(ran.filter(Boolean)).toHaveLength(1);
    expect(ticks).toBe(1);
    expect(await b!.cronTick(tick, 60, new Date('2026-01-01T00:02:01Z'))).toBe(true);
    expect(ticks).toBe(2);
  });

  it('runs resume, cancel and cleanup where the worktrees are: remote ones through each host queue, local ones here', async () => {
    const queue = new InProcessQueue();
    const { store } = rowsStore();
    const receipts: Record<string, string> = { r1: 'east', r2: 'west', r3: 'east' };
    const registry = {
      getReceipt: async (id: string) => (receipts[id] ? ({ runnerName: receipts[id] } as never) : undefined),
    };
    const dispatcher = createDispatcher({ queue, store, registry, localHost: 'bot@m1', machine: 'm1' });
    const executed: RunnerJob[] = [];
    const runner = {
      execute: async (j: RunnerJob) => {
        executed.push(j);
        return {};
      },
    };
    const at = (id: string, runner?: string, machine?: string) => ({
      id,
      ...(machine ? { host: machine } : {}),
      exitPath: runner ? `runner://${runner}/ws/.attempts/${id}/exit.json` : `/ws/.attempts/${id}/exit.json`,
    });
    const repo = { owner: 'o', name: 'r' };
    const cleanup = { kind: 'cleanup' as const, repo, mergedInto: 'blitz/m1', attemptIds: [] };

    const sent = await onAttemptHost(
      { dispatcher, runner },
      { kind: 'resume', attemptId: 'r2', reason: 'interrupted' },
      [at('r2', 'west')],
    );
    expect(sent).toMatchObject({ queue: 'host/west' });
    await onAttemptHost({ dispatcher, runner }, { kind: 'cancel', attemptId: 'l1' }, [at('l1')]);
    // A replica on machine m2 started this one: its worktree is there, so the job goes to m2's bots.
    await onAttemptHost({ dispatcher, runner }, { kind: 'cancel', attemptId: 'o1' }, [
      at('o1', undefined, 'm2'),
    ]);
    await onAttemptHost({ dispatcher, runner }, cleanup, [
      at('r1', 'east'),
      at('l1'),
      at('m1a', undefined, 'm1'),
      at('r2', 'west'),
      at('r3', 'east'),
    ]);

    expect(executed).toEqual([
      { kind: 'cancel', attemptId: 'l1' },
      { ...cleanup, attemptIds: ['l1', 'm1a'] },
    ]);
    const west = [await queue.claim(['host/west'], 'west'), await queue.claim(['host/west'], 'west')];
    expect(west.map((j) => j?.payload)).toEqual([
      { kind: 'resume', attemptId: 'r2', reason: 'interrupted' },
      { ...cleanup, attemptIds: ['r2'] },
    ]);
    expect((await queue.claim(['host/east'], 'east'))?.payload).toEqual({
      ...cleanup,
      attemptIds: ['r1', 'r3'],
    });
    expect((await queue.claim(['host/bot@m2'], 'bot-m2'))?.payload).toEqual({
      kind: 'cancel',
      attemptId: 'o1',
    });
    expect(await queue.claim(['host/east', 'host/west', 'host/bot@m1', 'host/bot@m2'], 'any')).toBeNull();
  });

  it('keeps a gate result as the job output, so the bot reads a remote build back from the queue', async () => {
    const queue = new InProcessQueue();
    const { store } = rowsStore();
    const queues = new Set<string>();
    const dispatcher = createDispatcher({ queue, store, localHost: 'bot', onQueue: (q) => queues.add(q) });
    const result = { exitCode: 1, timedOut: false, tail: 'FAIL src/a.test.ts' };
    const runner = {
      limit: () => ({ limit: 1, contended: false }),
      execute: async (j: RunnerJob) => ({ kind: j.kind, name: 'build', result }) as never,
    };
    const consumer = startLocalConsumer({
      queue,
      runner,
      holder: 'bot',
      hostQueue: 'host/bot',
      queues,
      logger: silentLogger(),
      pollMs: 60_000,
    });
    try {
      const sent = await dispatcher.toHost(
        { kind: 'gate', name: 'build', argv: ['npm', 'test'], cwd: '/ws/.worktrees/o/r/x' },
        'local-1',
      );
      expect(await consumer.drain()).toBe(1);
      const done = await dispatcher.job({ queue: sent.queue, id: sent.id! });
      expect(done).toMatchObject({ state: 'completed', output: { kind: 'gate', name: 'build', result } });
    } finally {
      await consumer.stop();
    }
  });
});
