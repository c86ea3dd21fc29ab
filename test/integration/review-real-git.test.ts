// Review legs over real git: a worker's clone pushes a branch to a bare origin that both fake forges
// serve, so the diff the reviewer reads is git's own; a second push and `/review` again edits the
// one comment with the new diff, and a cut diff is a true prefix of the whole one.
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseBlitzConfig } from '../../src/config/blitz-config.ts';
import { createGiteaForge } from '../../src/forges/gitea/index.ts';
import { createGithubForge } from '../../src/forges/github/index.ts';
import type { Forge, IssueRef } from '../../src/forges/types.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { reviewMarkerTag, reviewPullRequest } from '../../src/review/index.ts';
import { startFakeGitea } from '../support/fake-gitea/server.ts';
import { fastRetry } from '../support/fake-github/harness.ts';
import { startFakeGithub } from '../support/fake-github/server.ts';
import { commitAndPush, gitIn, removeDir, tempDir } from '../support/git.ts';
import { World } from '../support/world.ts';
import { createRealGitRepo, type RealGitRepo } from '../support/world-git.ts';

const fakeReviewer = new URL('../support/fake-agents/fake-reviewer.mjs', import.meta.url).pathname;
const app = { owner: 'acme', name: 'app' };
const quiet = () =>
  createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

interface Served {
  world: World;
  forge: Forge;
  close(): Promise<void>;
}

const forges: { name: string; serve: (repo: RealGitRepo) => Promise<Served> }[] = [
  {
    name: 'github',
    serve: async (repo) => {
      const world = new World('blitz-bot[bot]');
      world.addRepo('acme/app', { git: repo.git });
      const fake = await startFakeGithub(world);
      const forge = createGithubForge({
        baseUrl: fake.apiUrl,
        auth: { token: 'test-token' },
        botLogin: world.botLogin,
        logger: quiet(),
        retry: fastRetry,
      });
      return {
        world,
        forge,
        close: async () => {
          await fake.close();
          fake.assertNoViolations();
        },
      };
    },
  },
  {
    name: 'gitea',
    serve: async (repo) => {
      const world = new World('blitz-bot');
      world.addRepo('acme/app', { git: repo.git });
      const fake = await startFakeGitea(world);
      const forge = createGiteaForge({
        url: fake.url,
        token: fake.token,
        botLogin: world.botLogin,
        logger: quiet(),
        retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1, sleep: async () => {} },
      });
      return {
        world,
        forge,
        close: async () => {
          await fake.close();
          fake.assertNoViolations();
        },
      };
    },
  },
];

describe.each(forges)('review legs over a real bare origin on $name', ({ serve }) => {
  let repo: RealGitRepo;
  let served: Served;
  let root: string;
  let work: string;
  let pr: IssueRef;

  const capture = () => `${root}/prompt.json`;
  const reviewer = () => {
    const argv = [process.execPath, fakeReviewer, '--capture', capture(), '{prompt_file}'];
    return parseBlitzConfig(
      JSON.stringify({
        roster: [
          {
            name: 'fake',
            tool: 'custom',
            command: argv,
            resume: argv,
            roles: ['review'],
            tiers: ['execution'],
          },
        ],
      }),
    ).roster;
  };
  const review = (maxDiffBytes = 100_000) =>
    reviewPullRequest({
      forge: served.forge,
      pr,
      author: { name: 'worker', tool: 'claude' },
      roster: reviewer(),
      limits: { maxDiffBytes, timeoutSeconds: 30 },
      baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      signal: new AbortController().signal,
      workRoot: root,
    });
  const prompt = () => (JSON.parse(readFileSync(capture(), 'utf8')) as { prompt: string }).prompt;
  const comments = () => {
    const r = served.world.mustRepo('acme/app');
    return served.world.commentsOn(r, pr.number);
  };

  beforeEach(async () => {
    repo = await createRealGitRepo({ files: { 'src/a.ts': 'export const a = 1;\n' } });
    served = await serve(repo);
    root = tempDir('blitz-review-git-');
    await gitIn(root, 'clone', '--quiet', repo.bareDir, 'work');
    work = `${root}/work`;
    await gitIn(work, 'checkout', '--quiet', '-b', 'ticket/1-headless', 'origin/main');
    const lines = Array.from({ length: 60 }, (_, i) => `export const b${i} = ${i};`).join('\n');
    await commitAndPush(
      work,
      { 'src/a.ts': 'export const a = 2;\n', 'src/b.ts': `${lines}\n` },
      'ticket 1',
      'ticket/1-headless',
    );
    pr = (
      await served.forge.openPullRequest(app, {
        head: 'ticket/1-headless',
        base: 'main',
        title: 'Ticket 1',
        body: 'Fixes #1',
      })
    ).ref;
  });
  afterEach(async () => {
    await served.close();
    repo.cleanup();
    removeDir(root);
  });

  it("reviews git's own diff, and a re-review after a new push edits the one comment", async () => {
    const first = await review();
    expect(first.verdict).toBe('minor');
    expect(prompt()).toContain('-export const a = 1;');
    expect(prompt()).toContain('+export const a = 2;');
    expect(prompt()).toContain('+export const b59 = 59;');
    expect(comments()).toHaveLength(1);

    await commitAndPush(work, { 'src/c.ts': 'export const c = 3;\n' }, 'follow-up', 'ticket/1-headless');
    await review();
    expect(prompt()).toContain('+export const c = 3;');
    expect(comments()).toHaveLength(1);
    expect(comments()[0]!.body.startsWith(reviewMarkerTag)).toBe(true);
  });

  it('gives the reviewer a true prefix of the whole diff when it is cut, and says so', async () => {
    const whole = await served.forge.getPullRequestDiff(pr, 1_000_000);
    const result = await review(300);
    const shown = /```diff\n([\s\S]*?)\n```/.exec(prompt())?.[1];
    expect(shown).toMatch(/^diff --git a\//);
    expect(Buffer.byteLength(shown!)).toBeLessThanOrEqual(300);
    expect(whole.diff.startsWith(shown!)).toBe(true);
    expect(prompt()).toContain(`PARTIAL DIFF: the diff is ${whole.totalBytes.toLocaleString('en-US')} bytes`);
    expect(result.comment).toContain('Partial review');
  });
});
