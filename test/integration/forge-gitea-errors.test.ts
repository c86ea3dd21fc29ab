// Error paths of the Gitea adapter (retries, typed errors with actionable messages) and proof that
// the fake Gitea itself rejects what the swagger does not allow, so the contract check can fail.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { type GiteaHarness, startGiteaHarness } from '../support/fake-gitea/setup.ts';

let h: GiteaHarness;
const app = { owner: 'acme', name: 'app' };
const ref = (number: number) => ({ repo: app, number });

beforeEach(async () => {
  h = await startGiteaHarness({ retries: 2 });
  h.world.addIssue(h.repo, { number: 1, title: 'one' });
});
afterEach(async () => {
  await h.fake.close();
  h.fake.assertNoViolations();
});

const rejection = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
};

describe('retries', () => {
  it('retries a 5xx and then succeeds', async () => {
    h.fake.failNext({ status: 502, operationId: 'issueGetIssue' });
    expect((await h.forge.getIssue(ref(1))).title).toBe('one');
    expect(h.fake.requests.map((r) => r.status)).toEqual([502, 200]);
    expect(h.sleeps).toEqual([1]);
  });

  it('waits what Retry-After says on a 429, capped', async () => {
    h.fake.failNext({ status: 429, retryAfter: 1 });
    h.fake.failNext({ status: 429, retryAfter: 3600 });
    await h.forge.closeIssue(ref(1));
    expect(h.sleeps).toEqual([1000, 1500]);
    expect(h.repo.issues.get(1)?.state).toBe('closed');
  });

  it('gives up on a 5xx that never ends after a bounded number of tries, with a clear error', async () => {
    h.fake.failNext({ status: 503, times: Number.POSITIVE_INFINITY });
    const err = await rejection(h.forge.getIssue(ref(1)));
    expect(isAppError(err, 'forge_unavailable')).toBe(true);
    expect((err as Error).message).toBe(
      `Gitea at ${h.fake.url} answered 503 to 3 tries to read issue acme/app#1; giving up`,
    );
    expect(h.fake.requests).toHaveLength(3);
  });

  it('gives up on endless rate limiting as rate_limited', async () => {
    h.fake.failNext({ status: 429, times: Number.POSITIVE_INFINITY });
    const err = await rejection(h.forge.createComment(ref(1), 'x'));
    expect(isAppError(err, 'rate_limited')).toBe(true);
    expect(h.world.commentsOn(h.repo, 1)).toHaveLength(0);
  });

  it('does not repeat a POST after a 502, since it may have landed, but does after a 503', async () => {
    h.fake.failNext({ status: 502, operationId: 'issueCreateComment' });
    const err = await rejection(h.forge.createComment(ref(1), 'x'));
    expect(isAppError(err, 'forge_unavailable')).toBe(true);
    expect(h.fake.count('issueCreateComment')).toBe(1);
    h.fake.failNext({ status: 503, operationId: 'issueCreateComment' });
    await h.forge.createComment(ref(1), 'y');
    expect(h.fake.count('issueCreateComment')).toBe(3);
    expect(h.world.commentsOn(h.repo, 1).map((c) => c.body)).toEqual(['y']);
  });

  it('does not retry a 4xx', async () => {
    const err = await rejection(h.forge.getIssue(ref(404)));
    expect(isAppError(err, 'not_found')).toBe(true);
    expect((err as Error).message).toContain('could not read issue acme/app#404: not found on Gitea');
    expect(h.fake.requests).toHaveLength(1);
  });

  it('reports an unreachable Gitea as forge_unavailable after the retries', async () => {
    await h.fake.close();
    const err = await rejection(h.forge.getDefaultBranch(app));
    expect(isAppError(err, 'forge_unavailable')).toBe(true);
    expect((err as Error).message).toContain(
      'could not be reached to read repository acme/app after 3 tries',
    );
  });
});

describe('typed errors', () => {
  it('says the token was rejected on a 401', async () => {
    const other = await startGiteaHarness({ token: 'wrong-token', world: h.world });
    try {
      const err = await rejection(other.forge.getIssue(ref(1)));
      expect(isAppError(err, 'unauthorized')).toBe(true);
      expect((err as Error).message).toContain('check GITEA_TOKEN');
      expect((err as Error).message).not.toContain('wrong-token');
    } finally {
      await other.fake.close();
    }
  });

  it('says which access the bot lacks on a 403 and changes nothing (tried: close with read access)', async () => {
    h.world.grant(h.repo, 'blitz-bot', 'read');
    const err = await rejection(h.forge.closeIssue(ref(1)));
    expect(isAppError(err, 'forbidden')).toBe(true);
    expect((err as Error).message).toMatch(
      /^the bot \(blitz-bot\) lacks write access to acme\/app to close issue acme\/app#1/,
    );
    expect(h.repo.issues.get(1)?.state).toBe('open');
  });

  it("says the bot must be repo admin to read someone else's permission", async () => {
    h.world.grant(h.repo, 'wendy', 'write');
    const err = await rejection(h.forge.getPermission(app, 'wendy'));
    expect(isAppError(err, 'forbidden')).toBe(true);
    expect((err as Error).message).toContain('admin access to acme/app');
  });

  it('treats a missing repository as not found, not as "no permission"', async () => {
    // Asked for someone other than the account the repository would live under: that account's
    // permission is known without a request (it owns the repository), so it could not show this.
    const err = await rejection(h.forge.getPermission({ owner: 'acme', name: 'gone' }, 'carol'));
    expect(isAppError(err, 'not_found')).toBe(true);
    expect(h.fake.requests.map((r) => `${r.status} ${r.path}`)).toEqual([
      '404 /api/v1/repos/acme/gone/collaborators/carol/permission',
      '404 /api/v1/repos/acme/gone',
    ]);
  });
});

describe('the fake Gitea enforces the swagger', () => {
  const raw = (method: string, path: string, body?: unknown) =>
    fetch(`${h.fake.url}/api/v1${path}`, {
      method,
      headers: { authorization: `token ${h.fake.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('rejects a path the swagger does not have and records a violation', async () => {
    const res = await raw('GET', '/repos/acme/app/issues/1/blocked_by');
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('no such operation');
    expect(h.fake.violations).toHaveLength(1);
    expect(() => h.fake.assertNoViolations()).toThrow(/contract violations/);
    h.fake.violations.length = 0;
  });

  it('rejects a body missing a required field, an unknown field and an unknown query parameter', async () => {
    const merge = await raw('POST', '/repos/acme/app/pulls/1/merge', { do: 'merge' });
    expect(merge.status).toBe(500);
    const list = await raw('GET', '/repos/acme/app/issues?state=open&per_page=100');
    expect(list.status).toBe(500);
    const badEnum = await raw('GET', '/repos/acme/app/issues?type=prs');
    expect(badEnum.status).toBe(500);
    expect(h.fake.violations.join('\n')).toMatch(/required property 'Do'/);
    expect(h.fake.violations.join('\n')).toMatch(/additionalProperty":"do"/);
    expect(h.fake.violations.join('\n')).toMatch(/query parameter "per_page" is not in the API description/);
    expect(h.fake.violations.join('\n')).toMatch(/query "type" must be one of issues, pulls/);
    h.fake.violations.length = 0;
  });

  it('fails an operation the swagger has but the scenario does not expect', async () => {
    const res = await raw('DELETE', '/repos/acme/app');
    expect(res.status).toBe(501);
    expect(h.fake.violations[0]).toContain('repoDelete is in the swagger but not expected by this fake');
    expect(h.repo).toBe(h.world.mustRepo('acme/app'));
    h.fake.violations.length = 0;
  });

  it('answers without a token with 401 and changes nothing', async () => {
    const res = await fetch(`${h.fake.url}/api/v1/repos/acme/app/issues/1`, {
      method: 'PATCH',
      body: '{"state":"closed"}',
    });
    expect(res.status).toBe(401);
    expect(h.repo.issues.get(1)?.state).toBe('open');
  });
});
