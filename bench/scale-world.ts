// The world of `bench/scale.bench.ts`: N repositories on one fake forge, each a real bare origin with
// a fake CI on every pushed branch and an M-issue milestone from the seeded graph generator, plus a
// control-room issue where `/blitz M1` is typed. GitHub (contract-checked, App auth, its App webhook
// pointed at the bot; CI a check run, sent as its `check_run` webhook) or Gitea (contract-checked,
// a token; its webhooks signed and posted to the bot; CI a commit status, which Gitea sends no
// webhook for). Every World log entry is stamped with the wall clock (`stamps`), and so is every CI
// result, for the bench's timeline of where the time goes.

import { grantUsualPeople } from '../test/support/bot-harness.ts';
import { brokenFileTestScript, type FakeCi, startFakeCi } from '../test/support/fake-ci.ts';
import { type FakeGitea, startFakeGitea } from '../test/support/fake-gitea/server.ts';
import { appKeyPair } from '../test/support/fake-github/app-tokens.ts';
import { type FakeGithub, startFakeGithub } from '../test/support/fake-github/server.ts';
import { giteaEvents } from '../test/support/gitea-events.ts';
import { githubAppEvents } from '../test/support/github-app-events.ts';
import { type MilestoneGraph, milestoneGraph } from '../test/support/milestone-graph.ts';
import { World, type WorldRepo } from '../test/support/world.ts';
import { checksOf } from '../test/support/world-checks.ts';
import { createRealGitRepo, type RealGitRepo } from '../test/support/world-git.ts';

export const APP_ID = 3838;
export const INSTALLATION_ID = 38;
export const WEBHOOK_SECRET = 'scale-bench-webhook-secret';
export const CI_CHECK = 'test';
const GITEA_TOKEN = 'scale-bench-gitea-token';

export type ScaleForge = 'github' | 'gitea';

export interface ScaleRepo {
  repo: WorldRepo;
  origin: RealGitRepo;
  graph: MilestoneGraph;
  trigger: number;
  ci: FakeCi;
}

export interface ScaleWorld {
  forge: ScaleForge;
  world: World;
  fake: FakeGithub | FakeGitea;
  events: {
    comment(repo: WorldRepo, number: number, body: string, login: string): Promise<void>;
    reviewsSince(): Promise<number>;
  };
  repos: ScaleRepo[];
  /** The bot's environment for this forge (its URL, credentials and webhook secret). */
  botVars: Record<string, string>;
  /** The forge's webhooks go to the bot listening on `port` (again after a restart). */
  webhookTo(port: number): void;
  /** The operation of an edit of a comment (the dashboard's): GitHub's and Gitea's names differ. */
  commentEditOp: string;
  /** Wall-clock time (performance.now) of each World log entry, by index. */
  stamps: number[];
  /** Wall-clock time each CI result came, by head sha. */
  ciAt: Map<string, { at: number; passed: boolean }>;
  close(): Promise<void>;
}

export const startScaleWorld = async (o: {
  repos: number;
  issues: number;
  seed: number;
  forge: ScaleForge;
}): Promise<ScaleWorld> => {
  const world = new World(o.forge === 'github' ? 'blitz-bot[bot]' : 'blitz-bot');
  const stamps: number[] = [];
  const record = world.record.bind(world);
  world.record = (...args: Parameters<World['record']>) => {
    stamps.push(performance.now());
    record(...args);
  };
  const { publicKey, privateKey } = appKeyPair();
  const origins = new Map<WorldRepo, RealGitRepo>();
  const made: Omit<ScaleRepo, 'ci'>[] = [];
  for (let i = 0; i < o.repos; i++) {
    // CI fails on a `broken` line (the workers the bench makes red commit one first, then fix it).
    const files = {
      'README.md': '# app\n',
      'test.sh': brokenFileTestScript,
      [o.forge === 'github' ? '.github/blitz.yml' : '.gitea/blitz.yml']: 'ci:\n  wait: always\n',
    };
    const origin = await createRealGitRepo({ files });
    const repo = world.addRepo(`acme/app${i}`, { git: origin.git });
    for (const [path, text] of Object.entries(files)) repo.files.set(path, text);
    origins.set(repo, origin);
    grantUsualPeople(world, repo, o.forge);
    world.addMilestone(repo, 'M1');
    const graph = milestoneGraph({ issues: o.issues, seed: o.seed + i });
    for (const seed of graph.issues) world.addIssue(repo, { milestone: 'M1', ...seed });
    const trigger = world.addIssue(repo, { title: 'Blitz control room', author: 'alice' }).number;
    made.push({ repo, origin, graph, trigger });
  }
  const cloneUrl = (r: WorldRepo) => origins.get(r)!.bareDir;
  let webhookUrl = '';
  const github =
    o.forge === 'github'
      ? await startFakeGithub(world, {
          tokens: {},
          app: { appId: APP_ID, publicKey, installationId: INSTALLATION_ID },
          cloneUrl,
          webhookSecret: WEBHOOK_SECRET,
        })
      : undefined;
  const fake =
    github ?? (await startFakeGitea(world, { tokens: { [GITEA_TOKEN]: world.botLogin }, cloneUrl }));
  const githubEvents = github && githubAppEvents(world, github, INSTALLATION_ID);
  const events = githubEvents ?? giteaEvents(world, WEBHOOK_SECRET, () => webhookUrl);
  const botVars: Record<string, string> = github
    ? {
        APP_ID: String(APP_ID),
        PRIVATE_KEY: privateKey,
        WEBHOOK_SECRET,
        GHE_HOST: new URL(github.url).host,
        GHE_PROTOCOL: 'http',
        BOT_LOGIN: world.botLogin,
      }
    : {
        GITEA_URL: fake.url,
        GITEA_TOKEN,
        GITEA_WEBHOOK_SECRET: WEBHOOK_SECRET,
        GITEA_BOT_LOGIN: world.botLogin,
      };
  const ciAt = new Map<string, { at: number; passed: boolean }>();
  const sending = new Set<Promise<unknown>>();
  const repos: ScaleRepo[] = [];
  for (const m of made) {
    // Every pushed branch: a worker pushes before the bot opens its PR, as a branch's CI starts on push.
    const ci = await startFakeCi({
      world,
      repo: m.repo,
      bareDir: m.origin.bareDir,
      forge: o.forge,
      allBranches: true,
    });
    ci.events.on('done', (r) => {
      ciAt.set(r.sha, { at: performance.now(), passed: r.passed });
      if (!githubEvents) return;
      const p = githubEvents.ciDone(m.repo, r, CI_CHECK).catch(() => {});
      sending.add(p);
      void p.finally(() => sending.delete(p));
    });
    repos.push({ ...m, ci });
  }
  return {
    forge: o.forge,
    world,
    fake,
    events,
    repos,
    botVars,
    webhookTo(port) {
      webhookUrl = `http://127.0.0.1:${port}/api/${o.forge}/webhooks`;
      if (github) github.hook.url = webhookUrl;
    },
    commentEditOp: github ? 'issues/update-comment' : 'issueEditComment',
    stamps,
    ciAt,
    async close() {
      for (const r of repos) await r.ci.close();
      await Promise.allSettled([...sending]);
      await fake.close();
      await checksOf(world).close();
      for (const r of repos) r.origin.cleanup();
    },
  };
};
