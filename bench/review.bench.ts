// What a review leg costs beyond the reviewer itself: a whole `reviewPullRequest` on the fake
// GitHub (PR read, 1 MiB diff, prompt, fake reviewer process, sanitising, sticky comment; the
// forge's write spacing shrunk, as in tests) beside the same fake reviewer run alone on the same
// prompt; plus prompt building and sanitising of a 1 MiB diff and a 20,000-character answer beside
// one plain pass over the same text.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBlitzConfig } from '../src/config/blitz-config.ts';
import { createGithubForge } from '../src/forges/github/index.ts';
import { silentLogger } from '../src/observability/logger.ts';
import { buildReviewPrompt } from '../src/review/prompt.ts';
import { reviewPullRequest } from '../src/review/review-pull-request.ts';
import { sanitizeModelText } from '../src/review/sanitize.ts';
import { run } from '../src/runner/exec.ts';
import { fastRetry } from '../test/support/fake-github/harness.ts';
import { startFakeGithub } from '../test/support/fake-github/server.ts';
import { MemoryGit, World } from '../test/support/world.ts';
import { type Bench, median, round } from './figures.ts';

const RUNS = 5;
const reviewer = join(import.meta.dirname, '../test/support/fake-agents/fake-reviewer.mjs');
const line = '+export const value = compute(input) + 1; // bench line\n';
const diff = `diff --git a/src/a.ts b/src/a.ts\n${line.repeat(Math.ceil((1024 * 1024) / line.length))}`;
const answer = Array.from(
  { length: 400 },
  (_, i) => `- [low] src/a.ts:${i} — ping @dev <b>x</b> \`a<b\``,
).join('\n');

const time = async (f: () => Promise<unknown> | unknown): Promise<number> => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};

const bench: Bench = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'review-bench-'));
  const world = new World('blitz-bot[bot]');
  const git = new MemoryGit('main');
  const repo = world.addRepo('acme/app', { git });
  git.commit('feature', 'main');
  git.diffs.set('main...feature', diff);
  const fake = await startFakeGithub(world);
  const forge = createGithubForge({
    baseUrl: fake.apiUrl,
    auth: { token: 'test-token' },
    botLogin: world.botLogin,
    logger: silentLogger(),
    // GitHub's one-second spacing between writes would dominate the figure; shrink it as the tests do.
    retry: fastRetry,
  });
  const pr = await forge.openPullRequest(
    { owner: repo.owner, name: repo.name },
    {
      head: 'feature',
      base: 'main',
      title: 'bench',
      body: '',
    },
  );
  const argv = [process.execPath, reviewer, '{prompt_file}'];
  const { roster } = parseBlitzConfig(
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
  );
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const prompt = buildReviewPrompt({
    pr: 'acme/app#1',
    title: 'bench',
    body: '',
    baseBranch: 'main',
    headBranch: 'feature',
    diff: { diff, truncated: false, totalBytes: diff.length },
    nonce: 'bench',
  });
  const leg = () =>
    reviewPullRequest({
      forge,
      pr: pr.ref,
      author: { name: 'w', tool: 'claude' },
      roster,
      limits: { maxDiffBytes: 2 * 1024 * 1024, timeoutSeconds: 60 },
      baseEnv,
      signal: new AbortController().signal,
      workRoot: dir,
    });
  // The fake compiles each operation's contract on first use (create, then edit the comment): warm up.
  await leg();
  await leg();
  const alone: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    alone.push(
      await time(() =>
        run([process.execPath, reviewer], { cwd: dir, env: baseEnv, timeoutMs: 60_000, input: prompt }),
      ),
    );
    whole.push(await time(leg));
  }
  const copy: number[] = [];
  const build: number[] = [];
  const clean: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < RUNS * 4; i++) {
    copy.push(await time(() => Buffer.byteLength(diff)));
    build.push(
      await time(() =>
        buildReviewPrompt({
          pr: 'acme/app#1',
          title: 't',
          body: '',
          baseBranch: 'main',
          headBranch: 'f',
          diff: { diff, truncated: false, totalBytes: diff.length },
          nonce: 'n',
        }),
      ),
    );
    plain.push(await time(() => answer.split('\n').join('\n')));
    clean.push(await time(() => sanitizeModelText(answer, { maxChars: 20_000 })));
  }
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
  return [
    { name: 'review.fake_reviewer_alone_median', value: round(median(alone), 1), unit: 'ms' },
    { name: 'review.whole_leg_median', value: round(median(whole), 1), unit: 'ms' },
    {
      name: 'review.whole_leg_over_reviewer_alone',
      value: round(median(whole) / median(alone), 2),
      unit: 'x',
    },
    { name: 'review.prompt_1mib_median', value: round(median(build), 2), unit: 'ms' },
    {
      name: 'review.prompt_1mib_over_one_scan',
      value: round(median(build) / Math.max(median(copy), 0.001), 1),
      unit: 'x',
    },
    { name: 'review.sanitize_answer_median', value: round(median(clean), 2), unit: 'ms' },
    {
      name: 'review.sanitize_over_split_join',
      value: round(median(clean) / Math.max(median(plain), 0.001), 1),
      unit: 'x',
    },
  ];
};

export default bench;
