// The PR feedback webhooks end to end, in process: GitHub's check_run, check_suite, status,
// pull_request_review and pull_request_review_comment (shapes from @octokit/webhooks-examples) and
// Gitea's review events, signed, reach the event router as checks-changed / review-changed; the bot's
// own `blitz` check and a bad signature do not.
import { describe, expect, it } from 'vitest';
import { createHarness, GITEA_SECRET, GITHUB_SECRET } from '../support/intake-harness.ts';
import { githubExample, signedGiteaRequest, signedGithubRequest } from '../support/signing.ts';

const routed = (h: ReturnType<typeof createHarness>) =>
  h.lines.filter((l) => l.msg === 'event has no consumer yet').map((l) => l.kind);

const sendGithub = async (h: ReturnType<typeof createHarness>, event: string, payload: unknown) => {
  const res = await h.post(
    '/api/github/webhooks',
    signedGithubRequest({ secret: GITHUB_SECRET, event, payload }),
  );
  await h.queue.idle();
  return res;
};

describe('GitHub feedback webhooks', () => {
  it.each([
    ['check_run', 'completed', 'checks-changed'],
    ['check_suite', 'completed', 'checks-changed'],
    ['status', undefined, 'checks-changed'],
    ['pull_request_review', 'submitted', 'review-changed'],
    ['pull_request_review_comment', 'created', 'review-changed'],
  ])('%s.%s reaches the router as %s', async (event, action, kind) => {
    const h = createHarness();
    const payload = githubExample(event, action);
    if (event === 'check_run') (payload.check_run as Record<string, unknown>).name = 'test';
    const res = await sendGithub(h, event, payload);
    expect(res.status).toBe(202);
    expect(routed(h)).toEqual([kind]);
  });

  it('the bot’s own `blitz` check run is ignored, so updating it cannot loop', async () => {
    const h = createHarness();
    const payload = githubExample('check_run', 'completed');
    const run = payload.check_run as Record<string, unknown>;
    run.name = 'blitz';
    run.app = { ...(run.app as object), slug: 'blitz-bot' };
    await sendGithub(h, 'check_run', payload);
    expect(routed(h)).toEqual([]);
  });

  it('a check_run with a bad signature is refused and routes nothing', async () => {
    const h = createHarness();
    const req = signedGithubRequest({
      secret: 'wrong-secret',
      event: 'check_run',
      payload: githubExample('check_run', 'completed'),
    });
    const res = await h.post('/api/github/webhooks', req);
    await h.queue.idle();
    expect(res.status).toBe(401);
    expect(routed(h)).toEqual([]);
  });
});

describe('Gitea review webhooks', () => {
  const giteaReview = () => ({
    action: 'reviewed',
    number: 4,
    pull_request: { number: 4, title: 'x' },
    review: { type: 'pull_request_review_rejected', content: 'please rename' },
    repository: { name: 'app', owner: { login: 'acme' } },
    sender: { id: 3, login: 'wendy' },
  });

  it.each(['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment'])(
    '%s reaches the router as review-changed',
    async (eventType) => {
      const h = createHarness();
      const res = await h.post(
        '/api/gitea/webhooks',
        signedGiteaRequest({ secret: GITEA_SECRET, eventType, payload: giteaReview() }),
      );
      await h.queue.idle();
      expect(res.status).toBe(202);
      expect(routed(h)).toEqual(['review-changed']);
    },
  );

  it('a review payload without its pull request is refused as invalid and routes nothing', async () => {
    const h = createHarness();
    const { pull_request: _gone, ...broken } = giteaReview();
    const res = await h.post(
      '/api/gitea/webhooks',
      signedGiteaRequest({
        secret: GITEA_SECRET,
        eventType: 'pull_request_review_rejected',
        payload: broken,
      }),
    );
    await h.queue.idle();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(routed(h)).toEqual([]);
  });
});
