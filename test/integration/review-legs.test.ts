// Review legs end to end on both contract-checked fake forges: a PR reviewed by a fake reviewer CLI
// (a roster `custom` entry) or a local Ollama-shaped HTTP server, one sticky comment edited on a
// re-run, partial and empty diffs said as such, fallback on timeout and outage, and never a review
// (approval / request changes) API call.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseBlitzConfig } from '../../src/config/blitz-config.ts';
import { isAppError } from '../../src/errors.ts';
import type { Forge, IssueRef, RepoRef } from '../../src/forges/types.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { type ReviewPullRequestInput, reviewMarkerTag, reviewPullRequest } from '../../src/review/index.ts';
import { parseFinalReport } from '../../src/runner/final-report.ts';
import { startGiteaHarness } from '../support/fake-gitea/setup.ts';
import { githubHarness } from '../support/fake-github/harness.ts';
import type { MemoryGit, World, WorldRepo } from '../support/world.ts';

const fakeReviewer = join(import.meta.dirname, '../support/fake-agents/fake-reviewer.mjs');
const app: RepoRef = { owner: 'acme', name: 'app' };
const secret = 'sk-live-DO-NOT-LEAK-0123456789abcdef';
const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), REVIEW_API_KEY: secret };
const diffText = `diff --git a/src/a.ts b/src/a.ts\n${'+export const answer = 42;\n'.repeat(20)}`;

interface Setup {
  world: World;
  repo: WorldRepo;
  git: MemoryGit;
  forge: Forge;
  /** Operation ids of every request the fake answered, in order. */
  operations: () => string[];
  close(): Promise<void>;
}

/** What a review may call on each forge: read the PR and its diff, list, create and edit comments. */
const forges: { name: string; allowed: string[]; twoLegs: string[]; start: () => Promise<Setup> }[] = [
  {
    name: 'github',
    allowed: ['pulls/get', 'issues/list-comments', 'issues/create-comment', 'issues/update-comment'],
    // Two legs on one PR: the first finds no comment of its own and posts one, the second edits it.
    twoLegs: [
      'pulls/get',
      'pulls/get',
      'issues/list-comments',
      'issues/create-comment',
      'pulls/get',
      'pulls/get',
      'issues/update-comment',
    ],
    start: async () => {
      const h = await githubHarness();
      return {
        ...h,
        operations: () => h.fake.requests.map((r) => r.operationId ?? `${r.method} ${r.path}`),
        close: h.close,
      };
    },
  },
  {
    name: 'gitea',
    allowed: [
      'repoGetPullRequest',
      'repoDownloadPullDiffOrPatch',
      'issueGetComments',
      'issueCreateComment',
      'issueEditComment',
    ],
    twoLegs: [
      'repoGetPullRequest',
      'repoDownloadPullDiffOrPatch',
      'issueGetComments',
      'issueCreateComment',
      'repoGetPullRequest',
      'repoDownloadPullDiffOrPatch',
      'issueEditComment',
    ],
    start: async () => {
      const h = await startGiteaHarness();
      return {
        ...h,
        git: h.repo.git as MemoryGit,
        operations: () => h.fake.requests.map((r) => r.operationId ?? `${r.method} ${r.path}`),
        close: async () => {
          await h.fake.close();
          h.fake.assertNoViolations();
        },
      };
    },
  },
];

type EntrySpec = Record<string, unknown> & { name: string };
const roster = (entries: EntrySpec[]) =>
  parseBlitzConfig(
    JSON.stringify({ roster: entries.map((e) => ({ roles: ['review'], tiers: ['execution'], ...e })) }),
  ).roster;

describe.each(forges)('review legs on $name', ({ allowed, twoLegs, start }) => {
  let s: Setup;
  let dir: string;
  let pr: IssueRef;
  let opsBefore: number;

  /** A custom entry running the fake reviewer; its prompt and env are captured to `<name>.json`. */
  const fake = (name: string, extra: string[] = [], more: Record<string, unknown> = {}): EntrySpec => {
    const argv = [
      process.execPath,
      fakeReviewer,
      '--capture',
      join(dir, `${name}.json`),
      ...extra,
      '{prompt_file}',
    ];
    return { name, tool: 'custom', command: argv, resume: argv, ...more };
  };
  const captured = (name: string) =>
    JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as {
      prompt: string;
      blitzEnv: Record<string, string>;
    };
  const review = (over: Partial<ReviewPullRequestInput> & Pick<ReviewPullRequestInput, 'roster'>) =>
    reviewPullRequest({
      forge: s.forge,
      pr,
      author: { name: 'worker', tool: 'claude' },
      limits: { maxDiffBytes: 100_000, timeoutSeconds: 20 },
      baseEnv,
      signal: new AbortController().signal,
      workRoot: dir,
      ...over,
    });
  const prComments = () => s.world.commentsOn(s.repo, pr.number);
  const reviewOps = () => s.operations().slice(opsBefore);

  beforeEach(async () => {
    s = await start();
    dir = mkdtempSync(join(tmpdir(), 'review-legs-'));
    s.git.commit('ticket/1-headless', 'main');
    s.git.diffs.set('main...ticket/1-headless', diffText);
    const opened = await s.forge.openPullRequest(app, {
      head: 'ticket/1-headless',
      base: 'main',
      title: 'Add the answer',
      body: 'Fixes #1',
    });
    pr = opened.ref;
    opsBefore = s.operations().length;
  });
  afterEach(async () => {
    rmSync(dir, { recursive: true, force: true });
    await s.close();
  });

  it('posts exactly one review comment, verdict first, and a second review edits it', async () => {
    const first = await review({ roster: roster([fake('fast')]) });
    expect(first).toMatchObject({ verdict: 'minor', reviewer: 'fast', fellBack: [] });
    expect(prComments()).toHaveLength(1);
    const [comment] = prComments();
    expect(comment!.body.split('\n').slice(0, 2)).toEqual([
      reviewMarkerTag,
      expect.stringMatching(/^\*\*Review verdict: minor\*\*/),
    ]);
    expect(comment!.body).toContain('[medium] src/a.ts:1 — fake finding');
    expect(comment!.body).toContain('Reviewed by `fast` (custom)');
    expect(comment!.author).toBe(s.world.botLogin);
    expect(readdirSync(dir).filter((n) => n.startsWith('blitz-review-'))).toEqual([]);

    const again = await review({
      roster: roster([fake('fast', ['--verdict', 'clean', '--findings', '- none'])]),
      clock: () => new Date('2026-11-29T08:30:00Z'),
    });
    expect(again.verdict).toBe('clean');
    expect(prComments()).toHaveLength(1);
    expect(prComments()[0]!.id).toBe(comment!.id);
    expect(prComments()[0]!.body).toMatch(/^<!-- blitz-review -->\n\*\*Review verdict: clean\*\*/);
    expect(prComments()[0]!.body).toContain('Reviewed by `fast` (custom) at 2026-11-29T08:30:00.000Z.');
  });

  it('never calls a review (approve / request changes) API: only reads the PR and writes its comment', async () => {
    await review({ roster: roster([fake('fast', ['--verdict', 'blocking'])]) });
    await review({ roster: roster([fake('fast', ['--verdict', 'clean'])]) });
    expect(reviewOps()).toEqual(twoLegs);
    for (const op of reviewOps()) expect(allowed).toContain(op);
    expect(reviewOps().some((op) => /review/i.test(op))).toBe(false);
  });

  it('does not read again the PR its caller read just now: one PR read fewer, the same comment', async () => {
    const prReads = (ops: string[]) => ops.filter((op) => op === allowed[0]).length;
    await review({ roster: roster([fake('fast')]) });
    const unread = prReads(reviewOps());
    const pull = await s.forge.getPullRequest(pr);
    opsBefore = s.operations().length;
    await review({ roster: roster([fake('fast', ['--verdict', 'clean'])]), pull });
    expect(prReads(reviewOps())).toBe(unread - 1);
    expect(prComments()).toHaveLength(1);
    expect(captured('fast').prompt).toContain('Add the answer');
  });

  it('posts on a PR whose conversation held no comment without listing its comments first', async () => {
    expect(prComments()).toHaveLength(0);
    await review({ roster: roster([fake('fast')]), fresh: true });
    expect(prComments()).toHaveLength(1);
    expect(reviewOps().filter((op) => /list-comments|issueGetComments/.test(op))).toEqual([]);
  });

  it('puts the diff in the prompt fenced as untrusted data, and no environment value', async () => {
    await review({ roster: roster([fake('fast')]) });
    const { prompt, blitzEnv } = captured('fast');
    const begin = prompt.search(/BEGIN UNTRUSTED PULL REQUEST DATA [0-9a-f]{18}/);
    const end = prompt.search(/END UNTRUSTED PULL REQUEST DATA [0-9a-f]{18}/);
    expect(begin).toBeGreaterThan(0);
    expect(prompt.indexOf('+export const answer = 42;')).toBeGreaterThan(begin);
    expect(prompt.indexOf('+export const answer = 42;')).toBeLessThan(end);
    expect(prompt).toContain('Add the answer');
    expect(prompt).not.toContain('PARTIAL');
    expect(prompt).not.toContain(secret);
    expect(prompt).not.toContain(baseEnv.HOME);
    expect(blitzEnv).toMatchObject({ BLITZ_REPO: 'acme/app', BLITZ_ISSUE: String(pr.number) });
  });

  it('logs fixed messages and fields only: no diff, prompt, answer or environment value', async () => {
    let logged = '';
    const destination = new Writable({
      write(chunk, _enc, done) {
        logged += String(chunk);
        done();
      },
    });
    await review({
      roster: roster([fake('broken', ['--exit', '4'], { costRank: 0 }), fake('fast', [], { costRank: 1 })]),
      logger: createLogger({ level: 'debug', destination }),
    });
    expect(logged).toContain('review leg started');
    expect(logged).toContain('reviewer failed, trying the next');
    expect(logged).toContain('review posted');
    for (const leak of ['export const answer', 'UNTRUSTED', 'fake finding', secret, 'failing as asked'])
      expect(logged).not.toContain(leak);
  });

  it("hands the worker's FINAL REPORT claims to the reviewer as untrusted data to check", async () => {
    const log = [
      'working…',
      'FINAL REPORT',
      'PR: none — branch pushed',
      'TESTS: npm test — 3 passed',
      'REVIEW: none',
      'UNCERTAINTIES:',
      '- does the answer need to be 42?',
      'OUT-OF-SCOPE BUGS:',
      '- none',
      'STATUS: done — implemented',
    ].join('\n');
    const authorReport = parseFinalReport(log);
    expect(authorReport).toEqual({
      pr: 'none — branch pushed',
      tests: 'npm test — 3 passed',
      review: 'none',
      uncertainties: ['does the answer need to be 42?'],
      outOfScopeBugs: [],
      status: 'done — implemented',
    });
    await review({ roster: roster([fake('fast')]), authorReport });
    const { prompt } = captured('fast');
    expect(prompt).toContain('TESTS: npm test — 3 passed');
    expect(prompt).toContain('UNCERTAINTY: does the answer need to be 42?');
    expect(prompt.indexOf('TESTS: npm test')).toBeLessThan(prompt.search(/END UNTRUSTED PULL REQUEST DATA/));
  });

  it('says a truncated diff is partial in the prompt and in the comment', async () => {
    const result = await review({
      roster: roster([fake('fast')]),
      limits: { maxDiffBytes: 100, timeoutSeconds: 20 },
    });
    expect(captured('fast').prompt).toContain(
      `PARTIAL DIFF: the diff is ${Buffer.byteLength(diffText).toLocaleString('en-US')} bytes and only the first 100 bytes`,
    );
    expect(result.comment).toContain('Partial review');
    expect(prComments()[0]!.body).toContain(
      `Partial review: the diff is ${Buffer.byteLength(diffText).toLocaleString('en-US')} bytes and only the first 100 bytes were reviewed`,
    );
  });

  it('reports an empty diff as nothing to review, without running a reviewer', async () => {
    s.git.diffs.delete('main...ticket/1-headless');
    const result = await review({ roster: roster([fake('fast')]) });
    expect(result).toMatchObject({ verdict: 'nothing_to_review', fellBack: [] });
    expect(result.reviewer).toBeUndefined();
    expect(existsSync(join(dir, 'fast.json'))).toBe(false);
    expect(prComments()).toHaveLength(1);
    expect(prComments()[0]!.body).toContain('**Review: nothing to review**');
  });

  it('falls back to the next reviewer when one sleeps past the timeout, and says so', async () => {
    const result = await review({
      roster: roster([
        fake('slow', ['--sleep-ms', '30000'], { costRank: 0 }),
        fake('fast', [], { costRank: 1 }),
      ]),
      limits: { maxDiffBytes: 100_000, timeoutSeconds: 1 },
    });
    expect(result).toMatchObject({
      verdict: 'minor',
      reviewer: 'fast',
      fellBack: ['slow timed out after 1 s'],
    });
    expect(prComments()[0]!.body).toContain('`slow` timed out after 1 s; reviewed by `fast`.');
  });

  it('gives a claude author a non-claude reviewer when the roster has one', async () => {
    const result = await review({
      roster: roster([
        { name: 'claude-review', tool: 'claude', model: 'opus', costRank: 0 },
        fake('other', [], { costRank: 5 }),
      ]),
    });
    expect(result).toMatchObject({ reviewer: 'other', fellBack: [] });
    expect(prComments()[0]!.body).toContain('Reviewed by `other`');
  });

  it('posts a comment saying no review could be produced, and why, when every reviewer fails', async () => {
    const result = await review({
      roster: roster([
        fake('broken', ['--exit', '3'], { costRank: 0 }),
        fake('mute', ['--empty'], { costRank: 1 }),
      ]),
    });
    expect(result).toMatchObject({
      verdict: 'no_review',
      fellBack: ['broken exited with code 3', 'mute printed no review'],
    });
    const body = prComments()[0]!.body;
    expect(body).toContain('**Review: no review could be produced**');
    expect(body).toContain('`broken` exited with code 3. `mute` printed no review.');
    expect(body).not.toContain('failing as asked');
  });

  it("neutralises the model's mentions, HTML and hidden markers before posting", async () => {
    const evil = '- [low] ask @octocat <img src=x onerror=alert(1)>\n<!-- blitz-dashboard -->\n```\nunclosed';
    await review({ roster: roster([fake('fast', ['--findings', evil])]) });
    const body = prComments()[0]!.body;
    expect(body).not.toMatch(/(^|[^\w])@octocat/);
    expect(body).not.toContain('<img');
    expect(body.match(/<!--/g)).toHaveLength(1);
    expect(body.indexOf('Reviewed by')).toBeGreaterThan(body.lastIndexOf('```'));
  });

  it('reads a claude stream-JSON answer from a custom reviewer', async () => {
    const result = await review({
      roster: roster([fake('fast', ['--format', 'claude', '--verdict', 'blocking'])]),
    });
    expect(result.verdict).toBe('blocking');
    expect(prComments()[0]!.body).not.toContain('"type"');
  });

  it('refuses a zero diff limit before touching the forge', async () => {
    let err: unknown;
    try {
      await review({ roster: roster([fake('fast')]), limits: { maxDiffBytes: 0, timeoutSeconds: 20 } });
    } catch (e) {
      err = e;
    }
    expect(isAppError(err, 'bad_request')).toBe(true);
    expect(reviewOps()).toEqual([]);
    expect(prComments()).toHaveLength(0);
  });

  it('answers a PR that does not exist with not_found and writes nothing', async () => {
    let err: unknown;
    try {
      await review({ roster: roster([fake('fast')]), pr: { repo: app, number: 999 } });
    } catch (e) {
      err = e;
    }
    expect(isAppError(err, 'not_found')).toBe(true);
    expect(reviewOps().filter((op) => /comment/i.test(op))).toEqual([]);
    expect(existsSync(join(dir, 'fast.json'))).toBe(false);
  });

  it('stops without posting when the caller cancels mid-review', async () => {
    const controller = new AbortController();
    const pending = review({
      roster: roster([fake('slow', ['--sleep-ms', '30000'])]),
      signal: controller.signal,
    });
    // Kept: the cancel lands while the reviewer sleeps its 30 s (a later one too); nothing is waited on.
    setTimeout(() => controller.abort(), 300);
    let err: unknown;
    try {
      await pending;
    } catch (e) {
      err = e;
    }
    expect(isAppError(err, 'cancelled')).toBe(true);
    expect(prComments()).toHaveLength(0);
  });

  describe('with an Ollama reviewer', () => {
    let server: Server;
    let host: string;
    const seen: { prompt: string }[] = [];
    const violations: string[] = [];
    let answer = {
      status: 200,
      body: JSON.stringify({ model: 'qwen3-coder', response: 'VERDICT: clean\n- none', done: true }),
    };

    const readJson = async (req: IncomingMessage): Promise<unknown> => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    };

    beforeEach(async () => {
      seen.length = 0;
      violations.length = 0;
      answer = {
        status: 200,
        body: JSON.stringify({ model: 'qwen3-coder', response: 'VERDICT: clean\n- none', done: true }),
      };
      server = createServer(async (req, res) => {
        const fail = (why: string) => {
          violations.push(why);
          res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: why }));
        };
        if (req.method !== 'POST' || req.url !== '/api/generate')
          return fail(`unexpected ${req.method} ${req.url}`);
        if (!String(req.headers['content-type']).startsWith('application/json')) return fail('not JSON');
        let body: unknown;
        try {
          body = await readJson(req);
        } catch {
          return fail('body is not JSON');
        }
        const b = body as Record<string, unknown>;
        const keys = Object.keys(b).sort().join(',');
        if (keys !== 'model,prompt,stream') return fail(`unexpected fields ${keys}`);
        if (b.model !== 'qwen3-coder' || b.stream !== false || typeof b.prompt !== 'string')
          return fail('wrong model, stream or prompt');
        seen.push({ prompt: b.prompt });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterEach(async () => {
      await new Promise<void>((r) => server.close(() => r()));
    });

    const local = (more: Record<string, unknown> = {}): EntrySpec => ({
      name: 'local-qwen',
      tool: 'ollama',
      model: 'qwen3-coder',
      ...more,
    });

    it('sends { model, prompt, stream: false } to /api/generate and posts the .response', async () => {
      const result = await review({ roster: roster([local()]), ollama: { host } });
      expect(violations).toEqual([]);
      expect(seen).toHaveLength(1);
      expect(seen[0]!.prompt).toContain('+export const answer = 42;');
      expect(seen[0]!.prompt).not.toContain(secret);
      expect(result).toMatchObject({ verdict: 'clean', reviewer: 'local-qwen', fellBack: [] });
      expect(prComments()[0]!.body).toContain('Reviewed by `local-qwen` (ollama, model `qwen3-coder`)');
    });

    it("accepts Ollama's host:port form of OLLAMA_HOST", async () => {
      await review({ roster: roster([local()]), ollama: { host: host.replace('http://', '') } });
      expect(violations).toEqual([]);
      expect(seen).toHaveLength(1);
    });

    it('falls back when the endpoint is down, and never names the host in the comment', async () => {
      await new Promise<void>((r) => server.close(() => r()));
      server = createServer();
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const result = await review({
        roster: roster([local({ costRank: 0 }), fake('fast', [], { costRank: 1 })]),
        ollama: { host: 'http://user:pw@127.0.0.1:9' },
      });
      expect(result).toMatchObject({
        reviewer: 'fast',
        fellBack: ['local-qwen failed: the Ollama endpoint is unreachable'],
      });
      const body = prComments()[0]!.body;
      expect(body).toContain('`local-qwen` failed: the Ollama endpoint is unreachable; reviewed by `fast`.');
      expect(body).not.toContain('127.0.0.1');
      expect(body).not.toContain('pw@');
    });

    it('falls back on an HTTP error or a body without `response`', async () => {
      answer = { status: 500, body: '{"error":"model not loaded"}' };
      const first = await review({
        roster: roster([local({ costRank: 0 }), fake('fast', [], { costRank: 1 })]),
        ollama: { host },
      });
      expect(first).toMatchObject({
        reviewer: 'fast',
        fellBack: ['local-qwen failed: the Ollama endpoint answered HTTP 500'],
      });
      answer = { status: 200, body: '{"done":true}' };
      const second = await review({
        roster: roster([local({ costRank: 0 }), fake('fast', [], { costRank: 1 })]),
        ollama: { host },
      });
      expect(second.fellBack).toEqual(['local-qwen failed: the Ollama answer had no `response` text']);
      expect(prComments()).toHaveLength(1);
      expect(violations).toEqual([]);
    });

    it('says when no Ollama host is configured', async () => {
      const result = await review({ roster: roster([local()]) });
      expect(result).toMatchObject({
        verdict: 'no_review',
        fellBack: ['local-qwen has no Ollama host configured (OLLAMA_HOST)'],
      });
      expect(seen).toHaveLength(0);
    });
  });
});
