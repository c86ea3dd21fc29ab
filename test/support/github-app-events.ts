// The webhooks the fake GitHub's App sends for what happens on it, as GitHub would: a person's
// `issue_comment`, a CI `check_run` completed (named with the PRs whose head it ran on), and a
// `pull_request_review` for every review the World logs. Payloads are @octokit/webhooks-examples'
// own, with this World's repository, sender and installation put in; they go out through the fake's
// App webhook (`fake.hook`), signed, recorded as GitHub records its deliveries. Nothing is sent
// through here that GitHub would not send; the bot reads results from the API, as it does live.
import type { CiResult } from './fake-ci.ts';
import type { FakeGithub } from './fake-github/server.ts';
import { githubExample } from './signing.ts';
import type { World, WorldRepo } from './world.ts';

const repository = (p: Record<string, unknown>, repo: WorldRepo) => {
  const r = p.repository as Record<string, unknown>;
  Object.assign(r, {
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    owner: { ...(r.owner as object), login: repo.owner },
  });
};

export interface GithubAppEvents {
  /** A person's comment on an issue (added to the World, then its webhook sent). */
  comment(repo: WorldRepo, number: number, body: string, login: string): Promise<void>;
  /** CI finished on a head: `check_run.completed`, naming the open PRs whose head it is. */
  ciDone(repo: WorldRepo, result: CiResult, checkName: string): Promise<void>;
  /** Sends a review webhook for each review the World logged since the last call. */
  reviewsSince(): Promise<number>;
}

export const githubAppEvents = (world: World, fake: FakeGithub, installationId: number): GithubAppEvents => {
  const installation = { id: installationId, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzc=' };
  let seen = world.log.length;
  return {
    async comment(repo, number, body, login) {
      const c = world.addComment(repo, number, body, login);
      const p = githubExample('issue_comment', 'created');
      repository(p, repo);
      (p.issue as Record<string, unknown>).number = number;
      const pc = p.comment as Record<string, unknown>;
      Object.assign(pc, { id: c.id, body, user: { ...(pc.user as object), login, type: 'User' } });
      p.sender = { ...(p.sender as object), login, type: 'User' };
      p.installation = installation;
      await fake.hook.deliver('issue_comment', p);
    },
    async ciDone(repo, result, checkName) {
      const p = githubExample('check_run', 'completed');
      repository(p, repo);
      const run = p.check_run as Record<string, unknown>;
      const prs = [...repo.issues.values()].filter(
        (i) => i.pull && i.state === 'open' && i.pull.head === result.branch,
      );
      Object.assign(run, {
        name: checkName,
        head_sha: result.sha,
        status: 'completed',
        conclusion: result.passed ? 'success' : 'failure',
        pull_requests: prs.map((i) => ({
          url: `https://api.github.com/repos/${repo.owner}/${repo.name}/pulls/${i.number}`,
          id: i.number,
          number: i.number,
          head: { ref: i.pull!.head, sha: result.sha, repo: { id: 1, url: '', name: repo.name } },
          base: { ref: i.pull!.base, sha: result.sha, repo: { id: 1, url: '', name: repo.name } },
        })),
      });
      p.installation = installation;
      await fake.hook.deliver('check_run', p);
    },
    async reviewsSince() {
      const fresh = world.log.slice(seen);
      seen = world.log.length;
      let sent = 0;
      for (const e of fresh) {
        if (e.action !== 'review' || e.target === undefined) continue;
        const [owner = '', name = ''] = e.repo.split('/');
        const repo = world.repo(owner, name);
        if (!repo) continue;
        const p = githubExample('pull_request_review', 'submitted');
        repository(p, repo);
        (p.pull_request as Record<string, unknown>).number = e.target;
        p.sender = { ...(p.sender as object), login: (e.detail ?? 'someone').split(':')[0]!, type: 'User' };
        p.installation = installation;
        await fake.hook.deliver('pull_request_review', p);
        sent += 1;
      }
      return sent;
    },
  };
};
