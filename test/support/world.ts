// The state behind the fake forges: one neutral model of repositories, issues, milestones, labels,
// comments, dependency edges, sub-issues, branches and pull requests. The fake GitHub and fake Gitea
// servers are two HTTP views of a World, so an end-to-end scenario is seeded once and can run on
// either forge. Branches and merges go through a GitBackend: in memory by default, or a real bare
// git repository when a test needs real merges and conflicts.

export type WorldPermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface WorldUser {
  login: string;
  id: number;
  type: 'User' | 'Bot';
}

export interface WorldLabel {
  id: number;
  name: string;
  description: string;
  color: string;
}

export interface WorldMilestone {
  id: number;
  /** GitHub's per-repo number; Gitea uses the id. */
  number: number;
  title: string;
  description: string;
  state: 'open' | 'closed';
  createdAt: string;
}

export interface WorldComment {
  id: number;
  issueNumber: number;
  body: string;
  author: string;
  createdAt: string;
  updatedAt: string;
  reactions: { content: string; user: string }[];
}

export interface WorldIssue {
  id: number;
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  stateReason?: 'completed' | 'not_planned' | 'reopened';
  labels: string[];
  assignees: string[];
  author: string;
  milestoneId?: number;
  createdAt: string;
  updatedAt: string;
  closedAt?: string;
  locked: boolean;
  /** Set when this issue is a pull request (GitHub and Gitea share the number space). */
  pull?: WorldPull;
  /** Blocked-by edges, as full refs (cross-repo allowed). */
  blockedBy: { owner: string; repo: string; number: number }[];
  /** Sub-issue parent and children (GitHub only). */
  parent?: { owner: string; repo: string; number: number };
  subIssues: { owner: string; repo: string; number: number }[];
}

export interface WorldPull {
  head: string;
  base: string;
  headSha: string;
  merged: boolean;
  mergedAt?: string;
  mergeCommitSha?: string;
  mergedBy?: string;
  /**
   * Merges of this PR that a push to its base races (a test's fault): each is refused as GitHub refuses
   * it then, REST's 405 "Base branch was modified. Review and try the merge again.", nothing merged.
   */
  baseRaces?: number;
  /** Commit messages on the PR, for closing-keyword tests; when absent the fakes show one commit titled like the PR. */
  commits?: { sha: string; message: string }[];
}

export interface WorldRepo {
  owner: string;
  name: string;
  id: number;
  defaultBranch: string;
  private: boolean;
  permissions: Map<string, WorldPermission>;
  labels: Map<string, WorldLabel>;
  milestones: Map<number, WorldMilestone>;
  issues: Map<number, WorldIssue>;
  comments: Map<number, WorldComment>;
  /** Files on the default branch that the fakes serve through the contents API (e.g. `.github/blitz.yml`). */
  files: Map<string, string>;
  git: GitBackend;
}

/** What a merge does to the branches, in memory or in a real repository. */
export interface GitBackend {
  branches(): Promise<Map<string, string>>;
  resolve(ref: string): Promise<string | undefined>;
  createBranch(name: string, sha: string): Promise<void>;
  deleteBranch(name: string): Promise<void>;
  /** Points an existing branch at `sha`, whatever it pointed at (a forced ref update). */
  moveBranch(name: string, sha: string): Promise<void>;
  /** The commits reachable from `head` and not from `base` (what `base...head` compares). */
  commitsAhead(base: string, head: string): Promise<string[]>;
  /** True when `ancestor` is reachable from `ref`. */
  isAncestor(ancestor: string, ref: string): Promise<boolean>;
  /** Merge head into base; `conflict` when it cannot merge cleanly. Moves `base`. */
  merge(
    base: string,
    head: string,
    method: 'merge' | 'squash' | 'rebase',
    message: string,
  ): Promise<{ sha: string } | { conflict: true }>;
  /** Whether head merges cleanly into base, without changing anything. */
  canMerge(base: string, head: string): Promise<boolean>;
  /** The best common ancestor of two refs (Gitea reports it as a PR's merge_base); optional. */
  mergeBase?(a: string, b: string): Promise<string | undefined>;
  diff(base: string, head: string): Promise<string>;
  /** The files a commit changed against its first parent (a merged PR's files, as the forge keeps them). */
  commitFiles?(sha: string): Promise<Awaited<ReturnType<GitBackend['changedFiles']>>>;
  changedFiles(
    base: string,
    head: string,
  ): Promise<
    { path: string; status: 'added' | 'modified' | 'removed'; additions: number; deletions: number }[]
  >;
}

/**
 * A PR's files as the forges list them: an open PR's against its base; a merged one's as it merged (the
 * merge commit against its first parent: the base has moved past the PR since).
 */
export const pullFiles = (repo: WorldRepo, pull: WorldPull) =>
  pull.merged && pull.mergeCommitSha && repo.git.commitFiles
    ? repo.git.commitFiles(pull.mergeCommitSha)
    : repo.git.changedFiles(pull.base, pull.head);

/** Branches as names → fake shas, merges always clean unless a test marks a pair as conflicting. */
export class MemoryGit implements GitBackend {
  private readonly refs = new Map<string, string>();
  private readonly ancestry = new Map<string, Set<string>>();
  private seq = 0;
  readonly conflicts = new Set<string>();
  readonly diffs = new Map<string, string>();

  constructor(defaultBranch: string) {
    const root = this.nextSha();
    this.refs.set(defaultBranch, root);
    this.ancestry.set(root, new Set([root]));
  }

  private nextSha(): string {
    this.seq += 1;
    return this.seq.toString(16).padStart(40, '0');
  }

  /** Simulate a push: a new commit on `branch` (created off `from` when new). */
  commit(branch: string, from?: string): string {
    const parent = this.refs.get(branch) ?? (from ? this.refs.get(from) : undefined);
    const sha = this.nextSha();
    this.ancestry.set(sha, new Set([sha, ...(parent ? (this.ancestry.get(parent) ?? []) : [])]));
    this.refs.set(branch, sha);
    return sha;
  }

  async branches() {
    return new Map(this.refs);
  }
  async resolve(ref: string) {
    return this.refs.get(ref) ?? (this.ancestry.has(ref) ? ref : undefined);
  }
  async createBranch(name: string, sha: string) {
    this.refs.set(name, sha);
  }
  async deleteBranch(name: string) {
    this.refs.delete(name);
  }
  async moveBranch(name: string, sha: string) {
    this.refs.set(name, sha);
  }
  async commitsAhead(base: string, head: string) {
    const [b, h] = [await this.resolve(base), await this.resolve(head)];
    const inBase = b ? (this.ancestry.get(b) ?? new Set<string>()) : new Set<string>();
    return [...(h ? (this.ancestry.get(h) ?? []) : [])]
      .filter((s) => !inBase.has(s))
      .sort()
      .reverse();
  }
  async isAncestor(ancestor: string, ref: string) {
    const sha = await this.resolve(ref);
    return sha !== undefined && (this.ancestry.get(sha)?.has(ancestor) ?? false);
  }
  async mergeBase(a: string, b: string) {
    const [shaA, shaB] = [await this.resolve(a), await this.resolve(b)];
    const inB = shaB ? (this.ancestry.get(shaB) ?? new Set<string>()) : new Set<string>();
    const common = [...(shaA ? (this.ancestry.get(shaA) ?? []) : [])].filter((s) => inB.has(s));
    // shas are a counter in hex, so the highest common one is the nearest common ancestor
    return common.sort().at(-1);
  }
  async canMerge(base: string, head: string) {
    return !this.conflicts.has(`${base}<-${head}`);
  }
  async merge(base: string, head: string, _method: 'merge' | 'squash' | 'rebase', _message: string) {
    if (!(await this.canMerge(base, head))) return { conflict: true as const };
    const baseSha = this.refs.get(base);
    const headSha = this.refs.get(head);
    const sha = this.nextSha();
    this.ancestry.set(
      sha,
      new Set([
        sha,
        ...(baseSha ? (this.ancestry.get(baseSha) ?? []) : []),
        ...(headSha ? (this.ancestry.get(headSha) ?? []) : []),
      ]),
    );
    this.refs.set(base, sha);
    return { sha };
  }
  async diff(base: string, head: string) {
    return this.diffs.get(`${base}...${head}`) ?? '';
  }
  async changedFiles(base: string, head: string) {
    const diff = await this.diff(base, head);
    return [...diff.matchAll(/^diff --git a\/(\S+) b\/\S+$/gm)].map((m) => ({
      path: m[1]!,
      status: 'modified' as const,
      additions: 0,
      deletions: 0,
    }));
  }
}

export interface SeedIssue {
  number?: number;
  title: string;
  body?: string;
  labels?: string[];
  milestone?: string;
  author?: string;
  state?: 'open' | 'closed';
  blockedBy?: (number | string)[];
  parent?: number;
  createdAt?: string;
}

/** Parse `#3`, `3` or `owner/repo#3` relative to a repo. */
export const parseRefIn = (
  repo: WorldRepo,
  ref: number | string,
): { owner: string; repo: string; number: number } => {
  if (typeof ref === 'number') return { owner: repo.owner, repo: repo.name, number: ref };
  const m = /^(?:([^/\s#]+)\/([^/\s#]+))?#?(\d+)$/.exec(ref.trim());
  if (!m) throw new Error(`bad ref in seed: ${ref}`);
  return { owner: m[1] ?? repo.owner, repo: m[2] ?? repo.name, number: Number(m[3]) };
};

/** The whole fake tracker: users, repos and a monotonic clock so timestamps are deterministic. */
export class World {
  readonly users = new Map<string, WorldUser>();
  readonly repos = new Map<string, WorldRepo>();
  private idSeq = 1000;
  private tick = 0;
  /** Every mutation the fakes performed, for tests that count or order side effects. */
  readonly log: { at: string; action: string; repo: string; target?: number; detail?: string }[] = [];

  constructor(readonly botLogin = 'blitz-bot[bot]') {
    this.addUser(botLogin, 'Bot');
  }

  nextId(): number {
    this.idSeq += 1;
    return this.idSeq;
  }

  now(): string {
    this.tick += 1;
    return new Date(Date.UTC(2026, 0, 1, 0, 0, this.tick)).toISOString().replace('.000Z', 'Z');
  }

  addUser(login: string, type: 'User' | 'Bot' = 'User'): WorldUser {
    const existing = this.users.get(login.toLowerCase());
    if (existing) return existing;
    const user = { login, id: this.nextId(), type };
    this.users.set(login.toLowerCase(), user);
    return user;
  }

  addRepo(
    fullName: string,
    opts: { defaultBranch?: string; git?: GitBackend; private?: boolean; owner?: string } = {},
  ): WorldRepo {
    const [owner, name] = fullName.split('/');
    if (!owner || !name) throw new Error(`repo must be owner/name: ${fullName}`);
    const defaultBranch = opts.defaultBranch ?? 'main';
    const repo: WorldRepo = {
      owner,
      name,
      id: this.nextId(),
      defaultBranch,
      private: opts.private ?? false,
      permissions: new Map([[this.botLogin.toLowerCase(), 'write']]),
      labels: new Map(),
      milestones: new Map(),
      issues: new Map(),
      comments: new Map(),
      files: new Map(),
      git: opts.git ?? new MemoryGit(defaultBranch),
    };
    this.addUser(owner);
    repo.permissions.set(owner.toLowerCase(), 'admin');
    this.repos.set(fullName.toLowerCase(), repo);
    return repo;
  }

  repo(owner: string, name: string): WorldRepo | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  mustRepo(fullName: string): WorldRepo {
    const repo = this.repos.get(fullName.toLowerCase());
    if (!repo) throw new Error(`no repo ${fullName} in the world`);
    return repo;
  }

  grant(repo: WorldRepo, login: string, permission: WorldPermission): void {
    this.addUser(login);
    repo.permissions.set(login.toLowerCase(), permission);
  }

  permissionOf(repo: WorldRepo, login: string): WorldPermission {
    return repo.permissions.get(login.toLowerCase()) ?? 'none';
  }

  addLabel(repo: WorldRepo, name: string, description = ''): WorldLabel {
    const existing = repo.labels.get(name.toLowerCase());
    if (existing) return existing;
    const label = { id: this.nextId(), name, description, color: 'ededed' };
    repo.labels.set(name.toLowerCase(), label);
    return label;
  }

  addMilestone(
    repo: WorldRepo,
    title: string,
    opts: { description?: string; state?: 'open' | 'closed' } = {},
  ) {
    const number = repo.milestones.size + 1;
    const milestone: WorldMilestone = {
      id: this.nextId(),
      number,
      title,
      description: opts.description ?? '',
      state: opts.state ?? 'open',
      createdAt: this.now(),
    };
    repo.milestones.set(number, milestone);
    return milestone;
  }

  milestoneByTitle(repo: WorldRepo, title: string): WorldMilestone | undefined {
    return [...repo.milestones.values()].find((m) => m.title === title);
  }

  /** Issue and PR numbers share one sequence per repo, as on both forges. */
  nextNumber(repo: WorldRepo): number {
    return Math.max(0, ...repo.issues.keys()) + 1;
  }

  addIssue(repo: WorldRepo, seed: SeedIssue): WorldIssue {
    const number = seed.number ?? this.nextNumber(repo);
    if (repo.issues.has(number))
      throw new Error(`issue ${number} already exists in ${repo.owner}/${repo.name}`);
    const author = seed.author ?? repo.owner;
    this.addUser(author);
    for (const l of seed.labels ?? []) this.addLabel(repo, l);
    const milestone = seed.milestone ? this.milestoneByTitle(repo, seed.milestone) : undefined;
    if (seed.milestone && !milestone) throw new Error(`no milestone ${seed.milestone}`);
    const createdAt = seed.createdAt ?? this.now();
    const issue: WorldIssue = {
      id: this.nextId(),
      number,
      title: seed.title,
      body: seed.body ?? '',
      state: seed.state ?? 'open',
      labels: [...(seed.labels ?? [])],
      assignees: [],
      author,
      milestoneId: milestone?.id,
      createdAt,
      updatedAt: createdAt,
      closedAt: seed.state === 'closed' ? createdAt : undefined,
      locked: false,
      blockedBy: (seed.blockedBy ?? []).map((r) => parseRefIn(repo, r)),
      subIssues: [],
    };
    repo.issues.set(number, issue);
    if (seed.parent !== undefined) {
      const parent = repo.issues.get(seed.parent);
      if (!parent) throw new Error(`no parent issue ${seed.parent}`);
      issue.parent = { owner: repo.owner, repo: repo.name, number: parent.number };
      parent.subIssues.push({ owner: repo.owner, repo: repo.name, number });
    }
    return issue;
  }

  issue(repo: WorldRepo, number: number): WorldIssue | undefined {
    const issue = repo.issues.get(number);
    return issue && !issue.pull ? issue : undefined;
  }

  pull(repo: WorldRepo, number: number): WorldIssue | undefined {
    const issue = repo.issues.get(number);
    return issue?.pull ? issue : undefined;
  }

  setIssueState(repo: WorldRepo, issue: WorldIssue, state: 'open' | 'closed', actor: string): void {
    if (issue.state === state) return;
    issue.state = state;
    issue.updatedAt = this.now();
    issue.closedAt = state === 'closed' ? issue.updatedAt : undefined;
    issue.stateReason = state === 'closed' ? 'completed' : 'reopened';
    this.record(state === 'closed' ? 'close' : 'reopen', repo, issue.number, actor);
  }

  addComment(repo: WorldRepo, issueNumber: number, body: string, author: string): WorldComment {
    const at = this.now();
    const comment = {
      id: this.nextId(),
      issueNumber,
      body,
      author,
      createdAt: at,
      updatedAt: at,
      reactions: [],
    };
    repo.comments.set(comment.id, comment);
    this.record('comment', repo, issueNumber, author);
    return comment;
  }

  commentsOn(repo: WorldRepo, issueNumber: number): WorldComment[] {
    return [...repo.comments.values()]
      .filter((c) => c.issueNumber === issueNumber)
      .sort((a, b) => a.id - b.id);
  }

  async openPull(
    repo: WorldRepo,
    opts: { head: string; base: string; title: string; body: string; author: string },
  ): Promise<WorldIssue> {
    const headSha = await repo.git.resolve(opts.head);
    if (!headSha) throw new Error(`no branch ${opts.head}`);
    const number = this.nextNumber(repo);
    const at = this.now();
    const issue: WorldIssue = {
      id: this.nextId(),
      number,
      title: opts.title,
      body: opts.body,
      state: 'open',
      labels: [],
      assignees: [],
      author: opts.author,
      createdAt: at,
      updatedAt: at,
      locked: false,
      blockedBy: [],
      subIssues: [],
      pull: { head: opts.head, base: opts.base, headSha, merged: false },
    };
    repo.issues.set(number, issue);
    this.record('open_pull', repo, number, opts.author);
    return issue;
  }

  record(action: string, repo: WorldRepo, target?: number, detail?: string): void {
    this.log.push({ at: this.now(), action, repo: `${repo.owner}/${repo.name}`, target, detail });
  }

  /** How many times an action happened, e.g. `count('close', 'acme/app', 3)`. */
  count(action: string, repo?: string, target?: number): number {
    return this.log.filter(
      (e) =>
        e.action === action &&
        (repo === undefined || e.repo.toLowerCase() === repo.toLowerCase()) &&
        (target === undefined || e.target === target),
    ).length;
  }
}
