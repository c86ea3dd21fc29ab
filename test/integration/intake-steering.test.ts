// Steering commands (`/blitz retry #n`, `/blitz tell #n …`, `/merge --when-green`…) through the real
// event processor and a real SQLite store: writers only even where the operator lets readers start
// runs, each stored once per comment and line as an intent the orchestrator consumes.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseCommands } from '../../src/commands/parse.ts';
import type { CommandEvent } from '../../src/intake/events.ts';
import { createEventProcessor } from '../../src/intake/process-events.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { recordingForge } from '../support/intake-harness.ts';

const setup = () => {
  const store = openSqliteStore(':memory:');
  const forge = recordingForge('gitea', { rita: 'read', wendy: 'write' });
  const policy = { required: 'read' as const, botLogin: 'blitz-bot', allowedBots: [] };
  const process = createEventProcessor({
    store,
    logger: createLogger({ level: 'fatal', destination: new Writable({ write: (_c, _e, d) => d() }) }),
    metrics: createMetrics(),
    forges: async () => forge.forge,
    policies: { github: policy, gitea: policy },
  });
  return { store, forge, process };
};

const comment = (login: string, body: string, commentId: number): CommandEvent[] =>
  parseCommands(body).map((parsed) => ({
    kind: 'command',
    forge: 'gitea',
    repo: { owner: 'acme', name: 'shop' },
    sender: { login, type: 'User' },
    issueNumber: 1,
    isPullRequest: false,
    commentId,
    parsed,
  }));

describe('steering commands at intake', () => {
  it('refuses a reader who may start runs (BLITZ_PERMISSION=read) and stores nothing', async () => {
    const { store, forge, process } = setup();
    await process({ forge: 'gitea', deliveryId: 'd1', events: comment('rita', '/blitz retry #12', 501) });
    expect(await store.listIntents()).toEqual([]);
    const replies = forge.calls.filter((c) => c.method === 'createComment');
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ body: expect.stringContaining('only people with write access') });
  });

  it('still lets the same reader start a run, which the policy allows', async () => {
    const { store, process } = setup();
    await process({ forge: 'gitea', deliveryId: 'd1', events: comment('rita', '/blitz M1', 502) });
    expect((await store.listIntents()).map((i) => i.command)).toEqual([
      { name: 'blitz', milestone: 'M1', dryRun: false },
    ]);
  });

  it('stores a writer’s steering commands as intents keyed by comment and line, once', async () => {
    const { store, forge, process } = setup();
    const body =
      '/blitz retry #12\n/blitz tell #12 keep the old API\n/merge --when-green\n/blitz accept-review';
    await process({ forge: 'gitea', deliveryId: 'd1', events: comment('wendy', body, 503) });
    // The same comment under another delivery id (a redelivery) stores nothing new.
    await process({ forge: 'gitea', deliveryId: 'd2', events: comment('wendy', body, 503) });
    const intents = await store.listIntents();
    expect(intents.map((i) => [i.deliveryId, i.seq, i.command])).toEqual([
      ['comment:503', 1, { name: 'blitz-issue', action: 'retry', issue: { number: 12 } }],
      ['comment:503', 2, { name: 'blitz-tell', issue: { number: 12 }, message: 'keep the old API' }],
      ['comment:503', 3, { name: 'merge-when-green' }],
      ['comment:503', 4, { name: 'blitz-review', action: 'accept-review' }],
    ]);
    expect(intents.every((i) => i.status === 'queued' && i.sender === 'wendy')).toBe(true);
    // One acknowledgement for the comment (a reaction, no comment), none for the redelivery.
    expect(forge.calls.filter((c) => c.method === 'createComment')).toEqual([]);
    expect(forge.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(1);
  });

  it('answers a misspelt steering command with the nearest one and its usage, storing nothing', async () => {
    const { store, forge, process } = setup();
    await process({ forge: 'gitea', deliveryId: 'd1', events: comment('wendy', '/blitz retyr #12', 504) });
    expect(await store.listIntents()).toEqual([]);
    const reply = forge.calls.find((c) => c.method === 'createComment');
    expect(reply).toMatchObject({ body: expect.stringContaining('did you mean `/blitz retry`?') });
    expect(reply).toMatchObject({ body: expect.stringContaining('/blitz retry | skip | unhold <issue>') });
  });
});
