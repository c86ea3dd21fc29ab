// The fake GitHub's GraphQL endpoint: every query is parsed and validated against GitHub's published
// schema (@octokit/graphql-schema, plus the documented dependency fields in schema-extension.graphql)
// and then executed by graphql-js over the World, for the subset of types blitz-bot reads.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildSchema, execute, type GraphQLError, type GraphQLSchema, parse, validate } from 'graphql';
import type { World, WorldIssue, WorldRepo } from '../world.ts';
import { checksOf, type WorldCheckRun, type WorldReviewComment, type WorldStatus } from '../world-checks.ts';
import { holds, type PermissionLevel } from './app-permissions.ts';
import { actionsOnly, actionsOnlyMessage } from './rest-checks.ts';
import { mergeInfo, mergePull, syncHead } from './rest-pulls.ts';

/** The fields `createCheckRun` and `updateCheckRun` share (GitHub's CreateCheckRunInput / UpdateCheckRunInput). */
interface CheckRunFields {
  repositoryId: string;
  status?: string;
  conclusion?: string;
  detailsUrl?: string;
  externalId?: string;
  output?: { title: string; summary: string; text?: string };
}

/** The optional fields both check-run mutations write, as the World keeps them. */
const optionalFields = (input: CheckRunFields) => ({
  ...(input.conclusion ? { conclusion: input.conclusion.toLowerCase() } : {}),
  ...(input.detailsUrl ? { detailsUrl: input.detailsUrl } : {}),
  ...(input.externalId ? { externalId: input.externalId } : {}),
  ...(input.output
    ? { title: input.output.title, summary: input.output.summary, text: input.output.text ?? null }
    : {}),
});

/** GitHub's limit on a check run's summary. */
const summaryFits = (input: CheckRunFields): void => {
  if ((input.output?.summary.length ?? 0) > 65_535)
    throw new TypedError('UNPROCESSABLE', 'output.summary is too long (maximum is 65535 characters)');
};

let schema: GraphQLSchema | undefined;

/** GitHub's schema, built once per process (the SDL is 60k lines). */
export const githubSchema = (): GraphQLSchema => {
  if (!schema) {
    const require = createRequire(import.meta.url);
    // The package exports only its JS entry, so find its folder on the resolution paths.
    const dir = (require.resolve.paths('@octokit/graphql-schema') ?? [])
      .map((p) => join(p, '@octokit', 'graphql-schema'))
      .find((d) => existsSync(join(d, 'schema.graphql')));
    if (!dir) throw new Error('@octokit/graphql-schema is not installed');
    const sdl = readFileSync(join(dir, 'schema.graphql'), 'utf8');
    const extension = readFileSync(new URL('./schema-extension.graphql', import.meta.url), 'utf8');
    schema = buildSchema(`${sdl}\n${extension}`, { assumeValidSDL: true });
  }
  return schema;
};

interface PageArgs {
  first?: number;
  last?: number;
  after?: string;
  states?: string[];
}

const cursor = (i: number) => Buffer.from(`cursor:${i}`).toString('base64');
const fromCursor = (c: string | undefined) =>
  c ? Number(Buffer.from(c, 'base64').toString().replace('cursor:', '')) + 1 : 0;

/** A connection over all `items`, paged by `first`/`after`; GitHub caps `first` at 100. */
const connection = <T>(items: T[], args: PageArgs) => {
  // `last` without a cursor: the newest items (GitHub caps it at 100 too).
  if (args.first === undefined && args.last !== undefined && args.last >= 1 && args.last <= 100)
    return connection(items.slice(-args.last), { first: 100 });
  if (args.first === undefined || args.first < 1 || args.first > 100)
    throw new Error(
      'You must provide a `first` value between 1 and 100 to properly paginate the connection.',
    );
  const start = fromCursor(args.after);
  const page = items.slice(start, start + args.first);
  return {
    totalCount: items.length,
    nodes: page,
    edges: page.map((node, i) => ({ node, cursor: cursor(start + i) })),
    pageInfo: {
      hasNextPage: start + page.length < items.length,
      hasPreviousPage: start > 0,
      startCursor: page.length ? cursor(start) : null,
      endCursor: page.length ? cursor(start + page.length - 1) : null,
    },
  };
};

const repoId = (repo: WorldRepo) => Buffer.from(`Repository:${repo.id}`).toString('base64url');

/** An error GitHub answers with its `type` (UNPROCESSABLE, FORBIDDEN, NOT_FOUND …). */
class TypedError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** As on GitHub, a check run's GraphQL id is the `node_id` its REST answers carry (rest-checks.ts). */
const checkRunId = (id: number) => Buffer.from(`CheckRun:${id}`).toString('base64url');

/** As on GitHub, an issue's GraphQL id is the `node_id` its REST answers carry (serialize.ts). */
const issueId = (issue: WorldIssue) => Buffer.from(`Issue:${issue.id}`).toString('base64url');

const actor = (world: World, login: string) => {
  const u = world.users.get(login.toLowerCase()) ?? world.addUser(login);
  // As GitHub does: GraphQL names an App `<slug>` (a Bot, no `[bot]` suffix); REST and webhooks say `<slug>[bot]`.
  return u.type === 'Bot'
    ? { __typename: 'Bot', login: u.login.replace(/\[bot\]$/i, ''), id: `BOT_${u.id}`, databaseId: u.id }
    : { __typename: 'User', login: u.login, id: `U_${u.id}`, databaseId: u.id };
};

/** Closing keywords GitHub links, for PRs into the default branch only (as GitHub does). */
const closingRefs = (world: World, repo: WorldRepo, body: string) => {
  const out: { r: WorldRepo; i: WorldIssue }[] = [];
  const re = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+(?:([\w.-]+)\/([\w.-]+))?#(\d+)\b/gi;
  for (const m of body.matchAll(re)) {
    const r = m[1] && m[2] ? world.repo(m[1], m[2]) : repo;
    const i = r ? world.issue(r, Number(m[3])) : undefined;
    if (r && i) out.push({ r, i });
  }
  return out;
};

/** GitHub's words when the App's token lacks the permission a field or mutation needs. */
const notAccessible = () => new TypedError('FORBIDDEN', 'Resource not accessible by integration');

export const createRoot = (
  world: World,
  actorLogin: string,
  held: Readonly<Record<string, PermissionLevel>>,
) => {
  /** Check runs are an App's: a user token is refused, as GitHub does; an App needs `checks: write`. */
  const appOnly = (): void => {
    if (world.users.get(actorLogin.toLowerCase())?.type !== 'Bot')
      throw new TypedError('FORBIDDEN', 'You must authenticate as a GitHub App to use the Checks API');
    if (!holds(held, { name: 'checks', level: 'write' })) throw notAccessible();
  };
  /** A mutation the App's token lacks `need` for is refused, as GitHub does (app-permissions.ts). */
  const needs = (name: string, level: PermissionLevel = 'write'): void => {
    if (!holds(held, { name, level })) throw notAccessible();
  };
  /** Without `checks: read` a check run in a commit's rollup is refused: a null node and a FORBIDDEN error. */
  const canReadChecks = () => holds(held, { name: 'checks', level: 'read' });
  const readable = (repo: WorldRepo | undefined) =>
    repo && (!repo.private || world.permissionOf(repo, actorLogin) !== 'none') ? repo : undefined;

  const issueNode = (repo: WorldRepo, issue: WorldIssue): Record<string, unknown> => ({
    __typename: issue.pull ? 'PullRequest' : 'Issue',
    id: issueId(issue),
    databaseId: issue.id,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state.toUpperCase(),
    closed: issue.state === 'closed',
    locked: issue.locked,
    createdAt: issue.createdAt,
    updatedAt: issue.updatedAt,
    url: `https://fake.github.test/${repo.owner}/${repo.name}/issues/${issue.number}`,
    author: () => actor(world, issue.author),
    repository: () => repoNode(repo),
    milestone: () => {
      const m = [...repo.milestones.values()].find((x) => x.id === issue.milestoneId);
      return m ? milestoneNode(repo, m.number) : null;
    },
    labels: (args: PageArgs) =>
      connection(
        issue.labels.map((n) => {
          const l = world.addLabel(repo, n);
          return { name: l.name, description: l.description || null, color: l.color, id: `L_${l.id}` };
        }),
        args,
      ),
    assignees: (args: PageArgs) =>
      connection(
        issue.assignees.map((a) => actor(world, a)),
        args,
      ),
    parent: () => (issue.parent ? refNode(issue.parent) : null),
    subIssues: (args: PageArgs) => connection(issue.subIssues.map(refNode), args),
    // A blocker the app cannot read is a null node: counted, never named (fail closed upstream).
    blockedBy: (args: PageArgs) => connection(issue.blockedBy.map(refNode), args),
    blocking: (args: PageArgs) => connection([], args),
    issueDependenciesSummary: () => ({
      blockedBy: issue.blockedBy.filter((r) => refNode(r)?.state === 'OPEN').length,
      totalBlockedBy: issue.blockedBy.length,
      blocking: 0,
      totalBlocking: 0,
    }),
    ...(issue.pull ? pullFields(repo, issue) : {}),
    closingIssuesReferences: (args: PageArgs) => {
      const pull = issue.pull;
      const refs = pull && pull.base === repo.defaultBranch ? closingRefs(world, repo, issue.body) : [];
      return connection(
        refs.map(({ r, i }) => issueNode(r, i)),
        args,
      );
    },
  });

  /** A pull request's own fields: head, mergeability, its head commit's checks, reviews, review threads. */
  const pullFields = (repo: WorldRepo, issue: WorldIssue): Record<string, unknown> => {
    const pull = issue.pull!;
    const checks = checksOf(world);
    let syncing: Promise<void> | undefined;
    const synced = () => (syncing ??= syncHead(repo, issue));
    const info = async () => {
      await synced();
      return mergeInfo(repo, issue);
    };
    return {
      state: pull.merged ? 'MERGED' : issue.state.toUpperCase(),
      url: `https://fake.github.test/${repo.owner}/${repo.name}/pull/${issue.number}`,
      merged: pull.merged,
      mergeCommit: () => (pull.mergeCommitSha ? commitNode(repo, pull.mergeCommitSha) : null),
      headRefName: pull.head,
      headRefOid: async () => {
        await synced();
        return pull.headSha;
      },
      baseRefName: pull.base,
      mergeable: async () => {
        const m = (await info()).mergeable;
        return m === true ? 'MERGEABLE' : m === false ? 'CONFLICTING' : 'UNKNOWN';
      },
      mergeStateStatus: async () => (await info()).mergeableState.toUpperCase(),
      commits: async (args: PageArgs) => {
        await synced();
        return connection([{ commit: commitNode(repo, pull.headSha) }], args);
      },
      reviews: (args: PageArgs) =>
        connection(
          checks.reviewsOn(repo, issue.number).map((r) => ({
            databaseId: r.id,
            author: actor(world, r.author),
            state: r.state,
            body: r.body,
            commit: commitNode(repo, r.commitSha),
            submittedAt: r.submittedAt,
          })),
          args,
        ),
      // The conversation's comments (not review comments): the bot counts them.
      comments: (args: PageArgs) =>
        connection(
          world.commentsOn(repo, issue.number).map((c) => ({
            databaseId: c.id,
            author: actor(world, c.author),
            body: c.body,
          })),
          args,
        ),
      reviewThreads: (args: PageArgs) => {
        // A thread is a first comment and the replies to it, oldest first.
        const all = checks.commentsOn(repo, issue.number);
        const roots = all.filter((c) => c.inReplyTo === undefined);
        return connection(
          roots.map((root) => ({
            comments: (a: PageArgs) =>
              connection(
                all
                  .filter((c) => c.id === root.id || c.inReplyTo === root.id)
                  .map((c) => reviewCommentNode(repo, c)),
                a,
              ),
          })),
          args,
        );
      },
    };
  };

  const reviewCommentNode = (repo: WorldRepo, c: WorldReviewComment) => {
    return {
      databaseId: c.id,
      author: actor(world, c.author),
      body: c.body,
      path: c.path,
      line: c.line,
      createdAt: c.createdAt,
      commit: commitNode(repo, c.commitSha),
      replyTo: c.inReplyTo !== undefined ? { databaseId: c.inReplyTo } : null,
      pullRequestReview: { databaseId: c.reviewId },
    };
  };

  const checkRunNode = (run: WorldCheckRun) => ({
    __typename: 'CheckRun',
    id: checkRunId(run.id),
    databaseId: run.id,
    name: run.name,
    status: run.status.toUpperCase(),
    conclusion: run.conclusion ? run.conclusion.toUpperCase() : null,
    title: run.title,
    summary: run.summary,
    detailsUrl: run.detailsUrl ?? `https://fake.github.test/${run.repo}/runs/${run.id}`,
    permalink: `https://fake.github.test/${run.repo}/runs/${run.id}`,
    startedAt: run.startedAt,
    checkSuite: { app: { slug: run.appSlug } },
    annotations: (args: PageArgs) =>
      connection(
        run.annotations.map((a) => ({
          path: a.path,
          location: { start: { line: a.startLine }, end: { line: a.endLine } },
          annotationLevel: a.level.toUpperCase(),
          message: a.message,
          title: a.title,
        })),
        args,
      ),
  });

  const statusNode = (st: WorldStatus) => ({
    __typename: 'StatusContext',
    id: Buffer.from(`StatusContext:${st.id}`).toString('base64'),
    context: st.context,
    state: st.state === 'warning' ? 'SUCCESS' : st.state.toUpperCase(),
    description: st.description,
    targetUrl: st.targetUrl,
    createdAt: st.createdAt,
    creator: actor(world, st.creator),
  });

  /** A commit; its rollup is the newest check run per app and name and the newest status per context. */
  const commitNode = (repo: WorldRepo, sha: string) => ({
    oid: sha,
    statusCheckRollup: () => {
      const checks = checksOf(world);
      const seen = new Set<string>();
      const runs = checks
        .runsFor(repo, sha)
        .sort((a, b) => b.id - a.id)
        .filter((r) => !seen.has(`${r.appSlug}/${r.name}`) && seen.add(`${r.appSlug}/${r.name}`))
        .reverse();
      const statuses = checks.latestStatuses(repo, sha);
      if (runs.length === 0 && statuses.length === 0) return null;
      const items = [
        ...runs.map((r) => (canReadChecks() ? checkRunNode(r) : notAccessible())),
        ...statuses.map(statusNode),
      ];
      return { contexts: (args: PageArgs) => connection(items, args) };
    },
  });

  const refNode = (ref: { owner: string; repo: string; number: number }) => {
    const repo = readable(world.repo(ref.owner, ref.repo));
    const issue = repo?.issues.get(ref.number);
    return repo && issue ? issueNode(repo, issue) : null;
  };

  const milestoneNode = (repo: WorldRepo, number: number) => {
    const m = repo.milestones.get(number);
    if (!m) return null;
    return {
      id: `MI_${m.id}`,
      number: m.number,
      title: m.title,
      description: m.description || null,
      state: m.state.toUpperCase(),
      closed: m.state === 'closed',
      issues: (args: PageArgs) => {
        const states = args.states ?? ['OPEN', 'CLOSED'];
        const items = [...repo.issues.values()]
          .filter((i) => !i.pull && i.milestoneId === m.id && states.includes(i.state.toUpperCase()))
          .sort((a, b) => a.number - b.number)
          .map((i) => issueNode(repo, i));
        return connection(items, args);
      },
    };
  };

  const repoNode = (repo: WorldRepo) => ({
    // As GitHub does: a repository's GraphQL id is the `node_id` its REST answers carry (serialize.ts).
    id: repoId(repo),
    name: repo.name,
    nameWithOwner: `${repo.owner}/${repo.name}`,
    owner: { __typename: 'User', login: repo.owner, id: `U_${repo.owner}` },
    milestone: (args: { number: number }) => milestoneNode(repo, args.number),
    issue: (args: { number: number }) => {
      const i = world.issue(repo, args.number);
      return i ? issueNode(repo, i) : null;
    },
    pullRequest: (args: { number: number }) => {
      const p = world.pull(repo, args.number);
      return p ? issueNode(repo, p) : null;
    },
    // A branch by its full name (`refs/heads/x`, or a bare name as GitHub also takes); null when missing.
    ref: async (args: { qualifiedName: string }) => {
      const name = args.qualifiedName.replace(/^refs\/heads\//, '');
      const sha = (await repo.git.branches()).get(name);
      if (!sha) return null;
      return {
        id: Buffer.from(`Ref:${repo.id}:${name}`).toString('base64url'),
        name,
        prefix: 'refs/heads/',
        target: { __typename: 'Commit', oid: sha },
        // Compared as GitHub does: what `headRef` has that this ref has not, and the other way round.
        compare: async (c: { headRef: string }) => {
          const head = c.headRef.replace(/^refs\/heads\//, '');
          if (!(await repo.git.resolve(head)))
            throw new TypedError('NOT_FOUND', `Could not resolve to a Ref with the name '${c.headRef}'.`);
          const ahead = (await repo.git.commitsAhead(sha, head)).length;
          const behind = (await repo.git.commitsAhead(head, sha)).length;
          const status = ahead && behind ? 'DIVERGED' : ahead ? 'AHEAD' : behind ? 'BEHIND' : 'IDENTICAL';
          return { aheadBy: ahead, behindBy: behind, status };
        },
      };
    },
  });

  /** The issue or PR behind a node id, where the actor may read it. */
  const byId = (id: string) => {
    const m = /^Issue:(\d+)$/.exec(Buffer.from(id, 'base64url').toString());
    for (const repo of m ? world.repos.values() : []) {
      const issue = [...repo.issues.values()].find((i) => i.id === Number(m![1]));
      if (issue) return readable(repo) ? { repo, issue } : undefined;
    }
    return undefined;
  };
  const writable = (id: string) => {
    const found = byId(id);
    if (!found) throw new Error(`Could not resolve to a node with the global id of '${id}'.`);
    const p = world.permissionOf(found.repo, actorLogin);
    if (p !== 'write' && p !== 'maintain' && p !== 'admin')
      throw new Error('Resource not accessible by integration');
    return found;
  };

  /** The repository behind a node id, where the actor may write to it. */
  const writableRepo = (id: string) => {
    const repo = [...world.repos.values()].find((r) => repoId(r) === id && readable(r));
    if (!repo)
      throw new TypedError('NOT_FOUND', `Could not resolve to a node with the global id of '${id}'.`);
    const p = world.permissionOf(repo, actorLogin);
    if (p !== 'write' && p !== 'maintain' && p !== 'admin')
      throw new TypedError('FORBIDDEN', 'Resource not accessible by integration');
    return repo;
  };

  return {
    repository: (args: { owner: string; name: string }) => {
      const repo = readable(world.repo(args.owner, args.name));
      if (!repo)
        throw new Error(`Could not resolve to a Repository with the name '${args.owner}/${args.name}'.`);
      return repoNode(repo);
    },
    node: (args: { id: string }) => {
      const found = byId(args.id);
      return found ? issueNode(found.repo, found.issue) : null;
    },
    // Mutations (GitHub runs a document's mutations one after another, each on its own).
    addComment: (args: { input: { subjectId: string; body: string } }) => {
      const { repo, issue } = writable(args.input.subjectId);
      // A PR's conversation takes either permission; an issue's only `issues`.
      if (!(issue.pull && holds(held, { name: 'pull_requests', level: 'write' }))) needs('issues');
      const c = world.addComment(repo, issue.number, args.input.body, actorLogin);
      return { commentEdge: { node: { databaseId: c.id, id: `IC_${c.id}`, body: c.body } } };
    },
    createPullRequest: async (args: {
      input: { repositoryId: string; baseRefName: string; headRefName: string; title: string; body?: string };
    }) => {
      const { input } = args;
      const repo = writableRepo(input.repositoryId);
      needs('pull_requests');
      const head = input.headRefName.replace(/^[^:]+:/, '');
      if (!(await repo.git.resolve(head)))
        throw new TypedError('UNPROCESSABLE', `Head sha can't be blank, Head ref must be a branch`);
      if (!(await repo.git.resolve(input.baseRefName)))
        throw new TypedError('UNPROCESSABLE', `Base ref must be a branch`);
      const open = [...repo.issues.values()].find((i) => i.pull?.head === head && i.state === 'open');
      if (open)
        throw new TypedError('UNPROCESSABLE', `A pull request already exists for ${repo.owner}:${head}.`);
      const issue = await world.openPull(repo, {
        head,
        base: input.baseRefName,
        title: input.title,
        body: input.body ?? '',
        author: actorLogin,
      });
      return { pullRequest: issueNode(repo, issue) };
    },
    createCheckRun: async (args: { input: CheckRunFields & { headSha: string; name: string } }) => {
      const { input } = args;
      const repo = writableRepo(input.repositoryId);
      appOnly();
      const sha = await repo.git.resolve(input.headSha);
      if (sha !== input.headSha)
        throw new TypedError('UNPROCESSABLE', `No commit found for SHA: ${input.headSha}`);
      const status = (input.status ?? 'QUEUED').toLowerCase();
      if (actionsOnly.has(status) && !/^github-actions(\[bot\])?$/i.test(actorLogin))
        throw new TypedError('UNPROCESSABLE', actionsOnlyMessage);
      if (status === 'completed' && input.conclusion === undefined)
        throw new TypedError('UNPROCESSABLE', 'conclusion is required when status is completed');
      summaryFits(input);
      const run = checksOf(world).addRun(repo, {
        name: input.name,
        headSha: sha,
        appSlug: actorLogin.replace(/\[bot\]$/i, ''),
        status: status as WorldCheckRun['status'],
        ...optionalFields(input),
      });
      return { checkRun: checkRunNode(run) };
    },
    updateCheckRun: (args: { input: CheckRunFields & { checkRunId: string; name?: string } }) => {
      const { input } = args;
      const repo = writableRepo(input.repositoryId);
      appOnly();
      const m = /^CheckRun:(\d+)$/.exec(Buffer.from(input.checkRunId, 'base64url').toString());
      const run = m ? checksOf(world).run(repo, Number(m[1])) : undefined;
      if (!run)
        throw new TypedError(
          'NOT_FOUND',
          `Could not resolve to a node with the global id of '${input.checkRunId}'.`,
        );
      if (run.appSlug !== actorLogin.replace(/\[bot\]$/i, ''))
        throw new TypedError('FORBIDDEN', 'Resource not accessible by integration');
      const status = input.status?.toLowerCase();
      if (status !== undefined && actionsOnly.has(status) && !/^github-actions(\[bot\])?$/i.test(actorLogin))
        throw new TypedError('UNPROCESSABLE', actionsOnlyMessage);
      if (status === 'completed' && input.conclusion === undefined && !run.conclusion)
        throw new TypedError('UNPROCESSABLE', 'conclusion is required when status is completed');
      summaryFits(input);
      checksOf(world).updateRun(run, {
        ...(input.name ? { name: input.name } : {}),
        ...(status ? { status: status as WorldCheckRun['status'] } : {}),
        ...optionalFields(input),
      });
      return { checkRun: checkRunNode(run) };
    },
    mergePullRequest: async (args: {
      input: {
        pullRequestId: string;
        expectedHeadOid?: string;
        mergeMethod?: string;
        commitHeadline?: string;
      };
    }) => {
      const { input } = args;
      const { repo, issue } = writable(input.pullRequestId);
      // Merging writes the repository's contents (GitHub: "Contents" write, not "Pull requests").
      needs('contents');
      if (!issue.pull)
        throw new TypedError(
          'NOT_FOUND',
          `Could not resolve to a PullRequest with the id '${input.pullRequestId}'.`,
        );
      const m = await mergePull(world, repo, issue, {
        actor: actorLogin,
        ...(input.expectedHeadOid !== undefined ? { sha: input.expectedHeadOid } : {}),
        method: (input.mergeMethod ?? 'MERGE').toLowerCase() as 'merge' | 'squash' | 'rebase',
        ...(input.commitHeadline !== undefined ? { title: input.commitHeadline } : {}),
      });
      // GitHub types a refused merge UNPROCESSABLE, in REST's words.
      if ('refused' in m) throw new TypedError('UNPROCESSABLE', m.message);
      return { pullRequest: issueNode(repo, issue) };
    },
    closeIssue: (args: { input: { issueId: string; stateReason?: string } }) => {
      const { repo, issue } = writable(args.input.issueId);
      if (issue.pull) throw new Error(`Could not resolve to an Issue with the id '${args.input.issueId}'.`);
      needs('issues');
      world.setIssueState(repo, issue, 'closed', actorLogin);
      return { issue: issueNode(repo, issue) };
    },
  };
};

export interface GraphqlOutcome {
  /** Non-empty when the query is not valid against GitHub's schema: a contract violation. */
  invalid: string[];
  response: {
    data?: unknown;
    errors?: { message: string; type?: string; path?: readonly (string | number)[] }[];
  };
}

export const runGraphql = async (
  world: World,
  actorLogin: string,
  body: { query?: unknown; variables?: unknown },
  /** The App permissions of the request's token (app-permissions.ts). */
  held: Readonly<Record<string, PermissionLevel>>,
): Promise<GraphqlOutcome> => {
  if (typeof body.query !== 'string') return { invalid: ['GraphQL body has no query'], response: {} };
  let document: ReturnType<typeof parse>;
  try {
    document = parse(body.query);
  } catch (err) {
    return { invalid: [`GraphQL syntax: ${(err as Error).message}`], response: {} };
  }
  const errors = validate(githubSchema(), document);
  if (errors.length) return { invalid: errors.map((e) => e.message), response: {} };
  const result = await execute({
    schema: githubSchema(),
    document,
    rootValue: createRoot(world, actorLogin, held),
    variableValues: (body.variables ?? {}) as Record<string, unknown>,
  });
  // An error with no path is about the request itself (e.g. a variable of the wrong type).
  const requestErrors = (result.errors ?? []).filter((e) => !e.path);
  if (requestErrors.length) return { invalid: requestErrors.map((e) => e.message), response: {} };
  const out: GraphqlOutcome['response'] = { data: result.data };
  if (result.errors?.length)
    out.errors = result.errors.map((e: GraphQLError) => ({
      message: e.message,
      type:
        e.originalError instanceof TypedError
          ? e.originalError.type
          : /Could not resolve/.test(e.message)
            ? 'NOT_FOUND'
            : /not accessible by integration/.test(e.message)
              ? 'FORBIDDEN'
              : 'INVALID',
      path: e.path,
    }));
  return { invalid: [], response: out };
};
