// Error paths of the GitHub forge (typed errors, bounded retries, rate limits, app auth) and proof that
// the fake GitHub's contract checker can fail: requests the API description does not have are refused.
import { generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { createGithubForge } from '../../src/forges/github/index.ts';
import type { RepoRef } from '../../src/forges/types.ts';
import { OpenApiContract } from '../support/contract/openapi.ts';
import { fastRetry, type GithubHarness, githubHarness } from '../support/fake-github/harness.ts';
import { MemoryGit } from '../support/world.ts';

const app: RepoRef = { owner: 'acme', name: 'app' };

let h: GithubHarness;
afterEach(async () => {
  await h.close();
});

const rejection = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
};

describe('typed errors', () => {
  it('says which permission the app lacks on a 403, and changes nothing', async () => {
    h = await githubHarness();
    const issue = h.world.addIssue(h.repo, { title: 'x' });
    h.world.grant(h.repo, h.world.botLogin, 'read');
    const err = await rejection(h.forge.closeIssue({ repo: app, number: issue.number }));
    expect(isAppError(err, 'forbidden')).toBe(true);
    expect((err as Error).message).toMatch(/^the app lacks issues:write on acme\/app/);
    expect(issue.state).toBe('open');
  });

  it('turns bad credentials into unauthorized', async () => {
    h = await githubHarness();
    const forge = createGithubForge({
      baseUrl: h.fake.apiUrl,
      auth: { token: 'wrong' },
      botLogin: 'b',
      retry: fastRetry,
    });
    const err = await rejection(forge.getDefaultBranch(app));
    expect(isAppError(err, 'unauthorized')).toBe(true);
  });

  it('turns a missing repository into not_found naming it', async () => {
    h = await githubHarness();
    const err = await rejection(h.forge.getDefaultBranch({ owner: 'acme', name: 'nope' }));
    expect(isAppError(err, 'not_found')).toBe(true);
    expect((err as Error).message).toContain('acme/nope');
  });
});

describe('retries', () => {
  it('retries 5xx and succeeds', async () => {
    h = await githubHarness();
    h.world.addMilestone(h.repo, 'M1');
    h.fake.failNext(2, { status: 502 });
    expect((await h.forge.listOpenMilestones(app)).map((m) => m.title)).toEqual(['M1']);
    expect(h.fake.requests.map((r) => r.status)).toEqual([502, 502, 200]);
  });

  it('retries a GraphQL 5xx too', async () => {
    h = await githubHarness();
    h.world.addMilestone(h.repo, 'M1');
    h.world.addIssue(h.repo, { title: 'a', milestone: 'M1' });
    h.fake.failNext(1, { status: 503, match: /graphql/ });
    expect((await h.forge.loadMilestone(app, 1)).issues).toHaveLength(1);
  });

  it('gives up on a 5xx that never ends after a bounded number of attempts', async () => {
    h = await githubHarness();
    h.fake.failNext(1000, { status: 503 });
    const err = await rejection(h.forge.getDefaultBranch(app));
    expect(isAppError(err, 'forge_unavailable')).toBe(true);
    expect((err as Error).message).toContain('HTTP 503');
    expect(h.fake.requests).toHaveLength(fastRetry.retries + 1);
  });

  it('honours Retry-After on a secondary rate limit and then succeeds', async () => {
    h = await githubHarness();
    h.fake.failNext(1, {
      status: 429,
      headers: { 'retry-after': '3' },
      message: 'You have exceeded a secondary rate limit',
    });
    expect(await h.forge.getDefaultBranch(app)).toBe('main');
    expect(h.fake.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(h.logs()).toMatch(/"kind":"secondary","retryAfter":3.*"github rate limit"/);
  });

  it('waits out a primary rate limit (403, remaining 0) and then succeeds', async () => {
    h = await githubHarness();
    h.fake.failNext(1, {
      status: 403,
      headers: {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1),
      },
      message: 'API rate limit exceeded',
    });
    expect(await h.forge.getDefaultBranch(app)).toBe('main');
    expect(h.fake.requests.map((r) => r.status)).toEqual([403, 200]);
  });

  it('does not wait for a Retry-After beyond the cap: rate_limited at once', async () => {
    h = await githubHarness();
    h.fake.failNext(1, {
      status: 429,
      headers: { 'retry-after': '3600' },
      message: 'You have exceeded a secondary rate limit',
    });
    const err = await rejection(h.forge.getDefaultBranch(app));
    expect(isAppError(err, 'rate_limited')).toBe(true);
    expect(h.fake.requests).toHaveLength(1);
  });
});

describe('GitHub App auth', () => {
  it('mints an installation token with a signed JWT and hands it out as clone credentials, never logged', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    });
    h = await githubHarness({
      fake: { app: { appId: 42, publicKey, installationId: 7 } },
      auth: { appId: 42, privateKey, installationId: 7 },
    });
    const creds = await h.forge.cloneCredentials(app);
    expect(creds.password).toMatch(/^ghs_/);
    // GitHub's form: an ISO time to the second (the fake mints it an hour on).
    expect(creds.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(creds.url).not.toContain(creds.password);
    expect(h.fake.requests.map((r) => r.operationId)).toContain('apps/create-installation-access-token');
    expect(h.logs()).not.toContain(creds.password);
    expect(await h.forge.getDefaultBranch(app)).toBe('main');
  });

  it('mints each push token for one repository with contents: write only, refused on any other', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    });
    h = await githubHarness({
      fake: { app: { appId: 42, publicKey, installationId: 7 } },
      auth: { appId: 42, privateKey, installationId: 7 },
    });
    h.world.addRepo('acme/api', { git: new MemoryGit('main') });
    const before = Date.now();
    const creds = await h.forge.cloneCredentials(app);
    const grant = h.fake.installationTokens.find((g) => g.token === creds.password);
    expect(grant).toMatchObject({
      repositories: ['acme/app'],
      permissions: { contents: 'write', metadata: 'read' },
    });
    // The request body the bot sent is GitHub's (the fake checks it against the API description).
    const minted = h.fake.requests.filter((r) => r.operationId === 'apps/create-installation-access-token');
    expect(minted.at(-1)?.body).toEqual({ repositories: ['app'], permissions: { contents: 'write' } });
    const after = Date.now();
    const expires = Date.parse(creds.expiresAt ?? '');
    expect(expires).toBeGreaterThan(before);
    expect(expires - after).toBeLessThanOrEqual(3600_000);
    // The same token reaches its own repository and no other.
    const get = (repo: string) =>
      fetch(`${h.fake.apiUrl}/repos/${repo}`, { headers: { authorization: `token ${creds.password}` } });
    expect((await get('acme/app')).status).toBe(200);
    expect((await get('acme/api')).status).toBe(404);
    // Another repository's push gets a token of its own.
    const other = await h.forge.cloneCredentials({ owner: 'acme', name: 'api' });
    expect(other.password).not.toBe(creds.password);
    expect(h.fake.installationTokens.find((g) => g.token === other.password)?.repositories).toEqual([
      'acme/api',
    ]);
  });

  it('is refused when the JWT is signed by another key', async () => {
    const key = () =>
      generateKeyPairSync('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      });
    h = await githubHarness({
      fake: { app: { appId: 42, publicKey: key().publicKey, installationId: 7 } },
      auth: { appId: 42, privateKey: key().privateKey, installationId: 7 },
    });
    const err = await rejection(h.forge.getDefaultBranch(app));
    expect(isAppError(err, 'unauthorized')).toBe(true);
  });
});

describe('the fake checks the contract', () => {
  const raw = (method: string, path: string, body?: unknown) =>
    fetch(`${h.fake.url}${path}`, {
      method,
      headers: { authorization: 'token test-token', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** Take the violations out so afterEach passes, and return them for the test to inspect. */
  const takeViolations = () => h.fake.violations.splice(0);

  it('refuses a made-up path with a 500 and records a violation', async () => {
    h = await githubHarness();
    const res = await raw('GET', '/api/v3/repos/acme/app/made-up');
    expect(res.status).toBe(500);
    expect(takeViolations()).toEqual([
      'GET /repos/acme/app/made-up: GET /repos/acme/app/made-up is not in the API description',
    ]);
  });

  it('refuses a body missing a required field and changes nothing', async () => {
    h = await githubHarness();
    const res = await raw('POST', '/api/v3/repos/acme/app/issues', { body: 'no title' });
    expect(res.status).toBe(500);
    expect(takeViolations()[0]).toContain("must have required property 'title'");
    expect(h.repo.issues.size).toBe(0);
  });

  it('refuses an unknown query parameter and a wrongly typed one', async () => {
    h = await githubHarness();
    await raw('GET', '/api/v3/repos/acme/app/issues?bogus=1');
    await raw('GET', '/api/v3/repos/acme/app/issues?per_page=lots');
    const v = takeViolations();
    expect(v[0]).toContain('unknown query parameter "bogus"');
    expect(v[1]).toContain('query parameter "per_page"="lots"');
  });

  it('refuses an endpoint the API has but the scenario did not expect (not implemented by the fake)', async () => {
    h = await githubHarness();
    await raw('GET', '/api/v3/repos/acme/app/releases');
    expect(takeViolations()[0]).toContain(
      'repos/list-releases (GET /repos/acme/app/releases) is not implemented by the fake',
    );
  });

  it('refuses a GraphQL query with a field the schema does not have', async () => {
    h = await githubHarness();
    const res = await raw('POST', '/api/graphql', {
      query: '{ repository(owner: "acme", name: "app") { notAField } }',
    });
    expect(res.status).toBe(500);
    expect(takeViolations()[0]).toContain('Cannot query field "notAField" on type "Repository"');
  });

  it('refuses a GraphQL variable of the wrong type', async () => {
    h = await githubHarness();
    const query =
      'query($n: Int!) { repository(owner: "acme", name: "app") { issue(number: $n) { title } } }';
    const res = await raw('POST', '/api/graphql', { query, variables: { n: 'seven' } });
    expect(res.status).toBe(500);
    expect(takeViolations()[0]).toContain('Variable "$n" got invalid value "seven"');
  });

  it('checks responses too: an issue without its required fields is not a valid answer', () => {
    h = { close: async () => {} } as GithubHarness;
    const require = createRequire(import.meta.url);
    const contract = OpenApiContract.fromFile(
      require.resolve('@octokit/openapi/generated/api.github.com.json'),
    );
    const op = contract.match('GET', '/repos/acme/app/issues/1')!.operation;
    expect(contract.checkResponse(op, 200, { number: 1, title: 'x' }, 'application/json')[0]).toContain(
      "must have required property 'id'",
    );
    expect(contract.checkResponse(op, 418, undefined, 'application/json')[0]).toContain(
      'status 418 is not a documented response',
    );
  });
});
