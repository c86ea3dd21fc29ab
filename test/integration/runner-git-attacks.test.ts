// A worker attacking the runner through git (issue 33), one test per attack, with real git, real
// worker processes and, as root, a real second uid (`runner.user`): the worker's git config may name
// any address, ref or program it likes; none of it reaches the runner's credentials, its pushes, its
// uid, or another worker. The worker's repository is its own; the runner reads it only as the worker.

import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RosterEntry } from '../../src/config/blitz-config.ts';
import { commitAndPush, createOrigin, gitIn, originFile, originSha } from '../support/git.ts';
import { noSecondUser, reachableCopy, testWorker } from '../support/os-user.ts';
import {
  attemptJob,
  fakeAgent,
  fakeEntry,
  type Harness,
  makeHarness,
  settle,
} from '../support/runner-harness.ts';

const TOKEN = 'tok-forge-0123456789abcdef';
const recordUid = resolve('test/support/fake-agents/record-uid.mjs');
const asRoot = noSecondUser === undefined;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/** An HTTP server that answers 404 to everything and records each request's Authorization header. */
const authSink = async () => {
  const seen: { url: string; authorization?: string }[] = [];
  const server = createServer((req, res) => {
    seen.push({
      url: req.url ?? '',
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x.git`, seen };
};

/**
 * A runner with the bot's credentials; as root its workers run as the test user, from a fake agent
 * that user can reach (elsewhere as the bot's own user, where the attack is the same).
 */
const setUp = (): { h: Harness; entry: (env: Record<string, string>) => RosterEntry } => {
  if (!asRoot) {
    return { h: makeHarness({ credentials: { username: 'blitz-bot', token: TOKEN } }), entry: fakeEntry };
  }
  const h = makeHarness({
    credentials: { username: 'blitz-bot', token: TOKEN },
    runner: { user: testWorker().name },
    chmodWorkspace: 0o755,
  });
  const agent = reachableCopy(fakeAgent, 'fake-agent.mjs');
  return {
    h,
    entry: (env) => ({
      ...fakeEntry(env),
      command: ['node', agent, '{prompt_file}'],
      resume: ['node', agent, '--resume', '{prompt_file}'],
    }),
  };
};

const attempt = async (h: Harness, job: ReturnType<typeof attemptJob>) => {
  const r = await h.runner.execute(job);
  if (r.kind !== 'attempt') throw new Error('expected an attempt');
  return settle(h, r.attempt.id);
};

const issue = (number: number) => ({ issue: { repo: { owner: 'acme', name: 'app' }, number } });

describe('a worker attacking the runner through git', () => {
  it('a worker that points remote.<the clone URL>.url at its own address gets no credential sent there, and its work lands', async () => {
    const origin = await createOrigin();
    const sink = await authSink();
    const { h, entry } = setUp();
    // The clone URL has dots (every one does): a deny-list of `remote.<name>.url` never matched it. A
    // URL, not a bare path: git takes no remote name that starts with '/'.
    const cloneUrl = `file://${origin.url}`;
    const done = await attempt(
      h,
      attemptJob(cloneUrl, entry({ FAKE_AGENT_GIT_CONFIG: `remote.${cloneUrl}.url=${sink.url}` })),
    );
    expect(sink.seen).toEqual([]);
    expect(done).toMatchObject({ outcome: 'solved', exitCode: 0 });
    expect(await originFile(origin.url, done.branch, 'fake-7.txt')).toContain('done by fake agent for #7');
  }, 60_000);

  it('a worker that tags its commit and sets push.followTags gets no tag pushed: only its branch reaches origin', async () => {
    const origin = await createOrigin();
    const { h, entry } = setUp();
    const done = await attempt(
      h,
      attemptJob(
        origin.url,
        entry({ FAKE_AGENT_TAG: 'v9.9.9-evil', FAKE_AGENT_GIT_CONFIG: 'push.followTags=true' }),
      ),
    );
    expect(done.outcome).toBe('solved');
    const refs = (await gitIn(origin.url, 'for-each-ref', '--format=%(refname)')).split('\n').sort();
    expect(refs).toEqual(['refs/heads/main', `refs/heads/${done.branch}`].sort());
  }, 60_000);

  it("one worker's git config changes nothing for another worker's pushes in the same repository", async () => {
    const origin = await createOrigin();
    const trap = await createOrigin({ 'README.md': '# trap\n' });
    const { h, entry } = setUp();
    const first = await attempt(
      h,
      attemptJob(
        origin.url,
        entry({
          FAKE_AGENT_GIT_CONFIG: `url.${trap.url}.insteadOf=${origin.url}\nremote.${origin.url}.url=${trap.url}`,
        }),
      ),
    );
    const second = await attempt(h, attemptJob(origin.url, entry({}), issue(8)));
    expect(second).toMatchObject({ outcome: 'solved', exitCode: 0 });
    expect(await originFile(origin.url, second.branch, 'fake-8.txt')).toContain('done by fake agent for #8');
    expect(await originSha(origin.url, first.branch)).not.toBeNull();
    expect(await gitIn(trap.url, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main');
  }, 90_000);

  it.skipIf(!asRoot)(
    `programs a worker names in gpg.program, log.showSignature, core.alternateRefsCommand and core.fsmonitor run as the worker only, through its signed commit, a nudge and a base merge${asRoot ? '' : ` (${noSecondUser})`}`,
    async () => {
      const origin = await createOrigin();
      const { h, entry } = setUp();
      const prog = reachableCopy(recordUid, 'record-uid.mjs');
      const uids = join(dirname(prog), 'uids.log');
      writeFileSync(uids, '');
      chmodSync(uids, 0o666);
      const trap = [
        `gpg.program=${prog}`,
        'commit.gpgSign=true',
        'log.showSignature=true',
        `core.alternateRefsCommand=${prog}`,
        `core.fsmonitor=${prog}`,
      ].join('\n');
      const done = await attempt(h, attemptJob(origin.url, entry({ FAKE_AGENT_GIT_CONFIG: trap })));
      expect(done.outcome).toBe('solved');
      // The runner reads what the worker left (a nudge) and merges the moved base in (a conflict resume).
      await h.runner.execute({ kind: 'resume', attemptId: done.id, reason: 'nudge' });
      await settle(h, done.id);
      await commitAndPush(origin.work, { 'base.txt': 'moved\n' }, 'the base moves on');
      await h.runner.execute({ kind: 'resume', attemptId: done.id, reason: 'conflict', mergeBase: 'main' });
      const again = await settle(h, done.id);
      expect(again.outcome).toBe('solved');
      // The worker's signed merge of the base reached origin: the programs really ran, as the worker.
      expect(await originFile(origin.url, again.branch, 'base.txt')).toBe('moved');
      const ran = readFileSync(uids, 'utf8').split('\n').filter(Boolean).map(Number);
      expect(ran.length).toBeGreaterThan(0);
      expect([...new Set(ran)]).toEqual([testWorker().uid]);
    },
    90_000,
  );
});
