// The checks and reviews side of a World, kept beside it (one store per World) so world.ts stays as
// it is: check runs (GitHub), commit statuses (both forges), PR reviews and review comments, and the
// logs of Actions jobs served from a small loopback host, as GitHub serves them from a signed URL.
// Both fake forges read and write this store; the fake CI writes to it; tests await its events.
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { World, WorldRepo } from './world.ts';

export type RunStatus = 'queued' | 'in_progress' | 'completed';

export interface WorldCheckRun {
  id: number;
  repo: string;
  name: string;
  headSha: string;
  status: RunStatus;
  conclusion: string | null;
  title: string | null;
  summary: string | null;
  text: string | null;
  annotations: {
    path: string;
    startLine: number;
    endLine: number;
    level: 'notice' | 'warning' | 'failure';
    message: string;
    title: string | null;
  }[];
  detailsUrl: string | null;
  externalId: string | null;
  /** The app that created it: a bot's slug, or `github-actions` for an Actions job. */
  appSlug: string;
  startedAt: string;
  completedAt: string | null;
  /** An Actions job's log, served by the log host. */
  log?: string;
}

export interface WorldStatus {
  id: number;
  repo: string;
  sha: string;
  context: string;
  state: 'pending' | 'success' | 'error' | 'failure' | 'warning';
  description: string;
  targetUrl: string | null;
  creator: string;
  createdAt: string;
}

export interface WorldReview {
  id: number;
  repo: string;
  pull: number;
  author: string;
  /** GitHub's words; the fake Gitea maps them to its own. */
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING';
  body: string;
  commitSha: string;
  submittedAt: string;
}

export interface WorldReviewComment {
  id: number;
  repo: string;
  pull: number;
  reviewId: number;
  author: string;
  body: string;
  path: string;
  line: number;
  commitSha: string;
  inReplyTo?: number;
  createdAt: string;
}

export interface ChecksEvents {
  check: [WorldCheckRun];
  status: [WorldStatus];
  review: [WorldReview];
  reviewComment: [WorldReviewComment];
}

export class WorldChecks extends EventEmitter<ChecksEvents> {
  readonly runs: WorldCheckRun[] = [];
  readonly statuses: WorldStatus[] = [];
  readonly reviews: WorldReview[] = [];
  readonly reviewComments: WorldReviewComment[] = [];
  private logHost?: Promise<{ server: Server; url: string }>;

  constructor(readonly world: World) {
    super();
  }

  private key = (repo: WorldRepo) => `${repo.owner}/${repo.name}`.toLowerCase();

  addRun(
    repo: WorldRepo,
    run: Partial<WorldCheckRun> & Pick<WorldCheckRun, 'name' | 'headSha' | 'appSlug'>,
  ): WorldCheckRun {
    const at = this.world.now();
    const created: WorldCheckRun = {
      id: this.world.nextId(),
      repo: this.key(repo),
      status: 'queued',
      conclusion: null,
      title: null,
      summary: null,
      text: null,
      annotations: [],
      detailsUrl: null,
      externalId: null,
      startedAt: at,
      completedAt: null,
      ...run,
    };
    if (created.conclusion && created.status !== 'completed') created.status = 'completed';
    if (created.status === 'completed') created.completedAt ??= at;
    this.runs.push(created);
    this.world.record('check_run', repo, undefined, `${created.name}:${created.status}`);
    this.emit('check', created);
    return created;
  }

  updateRun(run: WorldCheckRun, patch: Partial<WorldCheckRun>): WorldCheckRun {
    Object.assign(run, patch);
    if (run.conclusion && run.status !== 'completed') run.status = 'completed';
    if (run.status === 'completed') run.completedAt ??= this.world.now();
    this.emit('check', run);
    return run;
  }

  runsFor(repo: WorldRepo, sha: string): WorldCheckRun[] {
    return this.runs.filter((r) => r.repo === this.key(repo) && r.headSha === sha);
  }

  run(repo: WorldRepo, id: number): WorldCheckRun | undefined {
    return this.runs.find((r) => r.repo === this.key(repo) && r.id === id);
  }

  addStatus(repo: WorldRepo, s: Omit<WorldStatus, 'id' | 'repo' | 'createdAt'>): WorldStatus {
    const status: WorldStatus = {
      id: this.world.nextId(),
      repo: this.key(repo),
      createdAt: this.world.now(),
      ...s,
    };
    this.statuses.push(status);
    this.emit('status', status);
    return status;
  }

  /** Every status on `sha`, newest first (as both forges list them). */
  statusesFor(repo: WorldRepo, sha: string): WorldStatus[] {
    return this.statuses.filter((s) => s.repo === this.key(repo) && s.sha === sha).reverse();
  }

  /** The newest status per context: what a combined status is made of. */
  latestStatuses(repo: WorldRepo, sha: string): WorldStatus[] {
    const seen = new Set<string>();
    return this.statusesFor(repo, sha).filter((s) => !seen.has(s.context) && seen.add(s.context));
  }

  addReview(
    repo: WorldRepo,
    r: Omit<WorldReview, 'id' | 'repo' | 'submittedAt'>,
    comments: { path: string; line: number; body: string; inReplyTo?: number }[] = [],
  ): WorldReview {
    const review: WorldReview = {
      id: this.world.nextId(),
      repo: this.key(repo),
      submittedAt: this.world.now(),
      ...r,
    };
    this.reviews.push(review);
    this.world.record('review', repo, r.pull, `${r.author}:${r.state}`);
    this.emit('review', review);
    for (const c of comments)
      this.addReviewComment(repo, {
        pull: r.pull,
        reviewId: review.id,
        author: r.author,
        commitSha: r.commitSha,
        ...c,
      });
    return review;
  }

  addReviewComment(
    repo: WorldRepo,
    c: Omit<WorldReviewComment, 'id' | 'repo' | 'createdAt'>,
  ): WorldReviewComment {
    const comment: WorldReviewComment = {
      id: this.world.nextId(),
      repo: this.key(repo),
      createdAt: this.world.now(),
      ...c,
    };
    this.reviewComments.push(comment);
    this.world.record('review_comment', repo, c.pull, c.author);
    this.emit('reviewComment', comment);
    return comment;
  }

  reviewsOn(repo: WorldRepo, pull: number): WorldReview[] {
    return this.reviews.filter((r) => r.repo === this.key(repo) && r.pull === pull);
  }

  commentsOn(repo: WorldRepo, pull: number): WorldReviewComment[] {
    return this.reviewComments.filter((c) => c.repo === this.key(repo) && c.pull === pull);
  }

  /** The address an Actions job's log is served at (started on first use). */
  async logUrl(runId: number): Promise<string> {
    this.logHost ??= new Promise((resolve) => {
      const server = createServer((req, res) => {
        const id = Number(/^\/logs\/(\d+)$/.exec(req.url ?? '')?.[1]);
        const log = this.runs.find((r) => r.id === id)?.log;
        if (log === undefined) return res.writeHead(404).end('log not found');
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(log);
      });
      server.listen(0, '127.0.0.1', () =>
        resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
      );
    });
    return `${(await this.logHost).url}/logs/${runId}`;
  }

  async close(): Promise<void> {
    const host = await this.logHost;
    if (!host) return;
    host.server.closeAllConnections();
    await new Promise<void>((resolve) => host.server.close(() => resolve()));
  }
}

const stores = new WeakMap<World, WorldChecks>();

/** The checks store of `world`, made on first use. */
export const checksOf = (world: World): WorldChecks => {
  let store = stores.get(world);
  if (!store) {
    store = new WorldChecks(world);
    stores.set(world, store);
  }
  return store;
};
