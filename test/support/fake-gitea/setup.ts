// One call for an integration test: a World with a repo, the fake Gitea over it, and the Gitea
// adapter pointed at it with tiny, recorded retry delays (delays are checked as values, never timed).
import { Writable } from 'node:stream';
import { createGiteaForge } from '../../../src/forges/gitea/index.ts';
import type { Forge } from '../../../src/forges/types.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { World, type WorldRepo } from '../world.ts';
import { type FakeGitea, type FakeGiteaOptions, startFakeGitea } from './server.ts';

export interface GiteaHarness {
  world: World;
  repo: WorldRepo;
  fake: FakeGitea;
  forge: Forge;
  /** Delays the adapter asked to sleep, in ms. */
  sleeps: number[];
  /** Everything the adapter logged, as text. */
  logs: () => string;
}

export const startGiteaHarness = async (
  opts: { fake?: FakeGiteaOptions; retries?: number; token?: string; world?: World } = {},
): Promise<GiteaHarness> => {
  const world = opts.world ?? new World('blitz-bot');
  const repo = world.repos.get('acme/app') ?? world.addRepo('acme/app');
  const fake = await startFakeGitea(world, opts.fake);
  const sleeps: number[] = [];
  let logged = '';
  const destination = new Writable({
    write(chunk, _enc, done) {
      logged += String(chunk);
      done();
    },
  });
  const forge = createGiteaForge({
    url: fake.url,
    token: opts.token ?? fake.token,
    botLogin: world.botLogin,
    logger: createLogger({ level: 'debug', destination }),
    retry: {
      retries: opts.retries ?? 2,
      minDelayMs: 1,
      maxDelayMs: 4,
      maxRetryAfterMs: 1500,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
  });
  return { world, repo, fake, forge, sleeps, logs: () => logged };
};
