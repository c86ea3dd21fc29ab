// A World, a fake GitHub over it and a GitHub forge pointed at the fake, for integration tests:
// `const h = await githubHarness()`, then `await h.close()` (which also fails on contract violations).
import { Writable } from 'node:stream';
import { createGithubForge } from '../../../src/forges/github/index.ts';
import type { Forge } from '../../../src/forges/types.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { MemoryGit, World, type WorldRepo } from '../world.ts';
import { type FakeGithub, type FakeGithubOptions, startFakeGithub } from './server.ts';

export interface GithubHarness {
  world: World;
  repo: WorldRepo;
  git: MemoryGit;
  fake: FakeGithub;
  forge: Forge;
  /** Everything the forge logged, as text, to prove what is never logged. */
  logs: () => string;
  close(): Promise<void>;
}

export const fastRetry = { retries: 2, minDelayMs: 1, secondMs: 1, maxRetryAfterSeconds: 60 };

export const githubHarness = async (
  opts: { fake?: FakeGithubOptions; auth?: Parameters<typeof createGithubForge>[0]['auth'] } = {},
): Promise<GithubHarness> => {
  const world = new World('blitz-bot[bot]');
  const git = new MemoryGit('main');
  const repo = world.addRepo('acme/app', { git });
  const fake = await startFakeGithub(world, opts.fake);
  const chunks: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: new Writable({
      write(chunk, _enc, cb) {
        chunks.push(String(chunk));
        cb();
      },
    }),
  });
  const forge = createGithubForge({
    baseUrl: fake.apiUrl,
    auth: opts.auth ?? { token: 'test-token' },
    botLogin: world.botLogin,
    logger,
    retry: fastRetry,
  });
  return {
    world,
    repo,
    git,
    fake,
    forge,
    logs: () => chunks.join(''),
    async close() {
      await fake.close();
      fake.assertNoViolations();
    },
  };
};
