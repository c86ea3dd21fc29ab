// Which App installation covers a repository, asked of the contract-checked fake GitHub with the
// App's JWT: runs started from stored commands carry no installation id, so the bot looks it up, unless
// a webhook of that repository named its installation.
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { createInstallationLookup } from '../../src/forges/github/index.ts';
import { createForgeResolver } from '../../src/intake/forge-resolver.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { type FakeGithub, startFakeGithub } from '../support/fake-github/server.ts';
import { World } from '../support/world.ts';

const keyPair = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });

let fake: FakeGithub | undefined;
afterEach(async () => {
  await fake?.close();
  fake?.assertNoViolations();
  fake = undefined;
});

const setup = async () => {
  const key = keyPair();
  const world = new World('blitz-bot[bot]');
  world.addRepo('acme/app');
  fake = await startFakeGithub(world, { app: { appId: 42, publicKey: key.publicKey, installationId: 7 } });
  return { key, fake, world };
};

const asked = (f: FakeGithub) => f.requests.filter((r) => r.operationId === 'apps/get-repo-installation');

describe('GitHub App installation of a repository', () => {
  it('is asked with the JWT once per repository, then remembered', async () => {
    const { key, fake } = await setup();
    const lookup = createInstallationLookup({
      baseUrl: fake.apiUrl,
      appId: 42,
      privateKey: key.privateKey,
      logger: silentLogger(),
    });
    expect(await lookup({ owner: 'acme', name: 'app' })).toBe(7);
    expect(await lookup({ owner: 'ACME', name: 'App' })).toBe(7);
    expect(asked(fake)).toHaveLength(1);
  });

  it('says the App is not installed when GitHub knows no installation, and asks again next time', async () => {
    const { key, fake } = await setup();
    const lookup = createInstallationLookup({
      baseUrl: fake.apiUrl,
      appId: 42,
      privateKey: key.privateKey,
      logger: silentLogger(),
    });
    // Tried: a repository the App is not installed on.
    for (let i = 0; i < 2; i++) {
      const err = await lookup({ owner: 'acme', name: 'ghost' }).catch((e: unknown) => e);
      expect(isAppError(err, 'forge_unavailable')).toBe(true);
      expect((err as Error).message).toContain('not installed on acme/ghost');
    }
    expect(asked(fake)).toHaveLength(2);
  });

  it('is refused when the JWT is signed by another key', async () => {
    const { fake } = await setup();
    const lookup = createInstallationLookup({
      baseUrl: fake.apiUrl,
      appId: 42,
      privateKey: keyPair().privateKey,
      logger: silentLogger(),
    });
    const err = await lookup({ owner: 'acme', name: 'app' }).catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(401);
  });

  it('a repository a webhook named with its installation needs no lookup; another one is looked up', async () => {
    const { key, fake, world } = await setup();
    world.addRepo('acme/other');
    const forges = createForgeResolver({
      github: { appId: '42', privateKey: key.privateKey, baseUrl: fake.apiUrl, botLogin: 'blitz-bot[bot]' },
      logger: silentLogger(),
      redact: (text) => text,
    });
    const fromWebhook = await forges({
      forge: 'github',
      installationId: 7,
      repo: { owner: 'acme', name: 'app' },
    });
    // A run of that repository (started from a stored command: no installation id) gets the same forge.
    expect(await forges({ forge: 'github', repo: { owner: 'ACME', name: 'app' } })).toBe(fromWebhook);
    expect(asked(fake)).toHaveLength(0);
    expect(await forges({ forge: 'github', repo: { owner: 'acme', name: 'other' } })).toBe(fromWebhook);
    expect(asked(fake)).toHaveLength(1);
  });
});
