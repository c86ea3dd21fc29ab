// The one interface the rest of the bot uses to talk to a tracker, and the domain types it speaks.
// Adapters (github/, gitea/) map every API payload into these types; nothing outside src/forges/
// sees an octokit or Gitea type. Optional methods are capabilities a forge may lack.

export type ForgeKind = 'github' | 'gitea';

/** A repository, as `owner/name`. */
export interface RepoRef {
  owner: string;
  name: string;
}

/** An issue or PR anywhere the installation reaches; cross-repo refs keep their repo. */
export interface IssueRef {
  repo: RepoRef;
  number: number;
}

/** Repository permission, normalised: GitHub's maintain counts as write, triage as read. */
export type Permission = 'admin' | 'write' | 'read' | 'none';

export const permissionRank: Record<Permission, number> = { none: 0, read: 1, write: 2, admin: 3 };

export const hasPermission = (actual: Permission, required: Permission): boolean =>
  permissionRank[actual] >= permissionRank[required];

export interface Label {
  name: string;
  description?: string;
}

export interface Milestone {
  number: number;
  title: string;
  description: string;
  state: 'open' | 'closed';
  openIssues: number;
  closedIssues: number;
}

export interface Issue {
  ref: IssueRef;
  title: string;
  body: string;
  state: 'open' | 'closed';
  labels: Label[];
  assignees: string[];
  author: string;
  milestone?: { number: number; title: string };
  createdAt: string;
  locked: boolean;
  isPullRequest: boolean;
}

/** An open issue of a milestone with the edges the planner needs. */
export interface MilestoneIssue extends Issue {
  /** Issues this one is blocked by (may live in other repos). */
  blockedBy: IssueRef[];
  /** Sub-issue parent, where the forge has sub-issues. */
  parent?: IssueRef;
  /** Sub-issues, where the forge has them. */
  children: IssueRef[];
}

/** A blocker's state, as far as the forge could read it: `unknown` when it does not exist or cannot be read. */
export interface BlockerState {
  ref: IssueRef;
  state: 'open' | 'closed' | 'unknown';
  title?: string;
}

export interface MilestoneSnapshot {
  milestone: Milestone;
  issues: MilestoneIssue[];
  /** State of every blocker named by an issue but not itself an open issue of the milestone. */
  externalBlockers: BlockerState[];
}

export interface Comment {
  id: number;
  body: string;
  author: string;
  createdAt: string;
  updatedAt: string;
}

export type Reaction = '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';

export interface PullRequest {
  ref: IssueRef;
  title: string;
  body: string;
  state: 'open' | 'closed';
  merged: boolean;
  mergeCommitSha?: string;
  head: { ref: string; sha: string };
  base: { ref: string };
  /** null while the forge is still computing it. */
  mergeable: boolean | null;
  /** clean | behind | dirty (conflicts) | blocked | unstable | unknown */
  mergeState: 'clean' | 'behind' | 'dirty' | 'blocked' | 'unstable' | 'unknown';
  author: string;
  htmlUrl: string;
}

export interface PullRequestFile {
  path: string;
  status: 'added' | 'modified' | 'removed' | 'renamed' | 'other';
  additions: number;
  deletions: number;
}

export interface BoundedDiff {
  diff: string;
  /** True when the diff was cut at the limit: a reviewer must be told it is not whole. */
  truncated: boolean;
  totalBytes: number;
}

export type MergeMethod = 'merge' | 'squash' | 'rebase';

export interface MergeResult {
  sha: string;
}

export interface CloneCredentials {
  /** Plain https clone URL without credentials. */
  url: string;
  /** Username/password to hand git through a credential helper or http.extraHeader, never the URL on disk. */
  username: string;
  password: string;
  /** When the credentials stop working (ISO time), if they expire. */
  expiresAt?: string;
}

export interface NewIssue {
  title: string;
  body: string;
  labels?: string[];
  milestone?: number;
}

export interface NewPullRequest {
  head: string;
  base: string;
  title: string;
  body: string;
}

/**
 * One forge connection, scoped to an installation (GitHub) or a token (Gitea).
 * Errors are AppErrors: `not_found`, `forbidden`, `unauthorized`, `rate_limited`, `forge_unavailable`,
 * `conflict`, `unmergeable`, `forge_error`, each with a message a person can act on.
 */
export interface Forge {
  readonly kind: ForgeKind;
  /** The login the bot acts as here (`<slug>[bot]` on GitHub, the token's user on Gitea): its own issues are trusted. */
  readonly botLogin: string;

  // Milestones
  /** By number (`3`, `#3`) or case-insensitive title substring; undefined picks the lowest-numbered open milestone with open issues. */
  resolveMilestone(repo: RepoRef, query?: string): Promise<Milestone>;
  listOpenMilestones(repo: RepoRef): Promise<Milestone[]>;
  /** The repositories the bot can reach; only where the forge sends no milestone webhook (Gitea). */
  listRepositories?(): Promise<RepoRef[]>;
  /** Open issues of the milestone (no PRs), their blocked-by edges and sub-issue links, and the state of blockers outside it. */
  loadMilestone(repo: RepoRef, milestoneNumber: number): Promise<MilestoneSnapshot>;

  // Issues
  getIssue(ref: IssueRef): Promise<Issue>;
  closeIssue(ref: IssueRef): Promise<void>;
  reopenIssue(ref: IssueRef): Promise<void>;
  createIssue(repo: RepoRef, issue: NewIssue): Promise<Issue>;
  /** Record that `issue` is blocked by `blocker`. Idempotent. */
  addBlockedBy(issue: IssueRef, blocker: IssueRef): Promise<void>;
  addLabels(ref: IssueRef, labels: string[]): Promise<void>;
  removeLabel(ref: IssueRef, label: string): Promise<void>;
  /** Open issues carrying a label (for `/ticket-fleet label:x`). */
  listIssuesWithLabel(repo: RepoRef, label: string): Promise<Issue[]>;

  // Comments and reactions
  createComment(ref: IssueRef, body: string): Promise<Comment>;
  /** Find the bot's comment carrying `<!-- marker -->` and edit it, or create it. Never duplicates. */
  upsertStickyComment(ref: IssueRef, marker: string, body: string): Promise<Comment>;
  listComments(ref: IssueRef): Promise<Comment[]>;
  reactToComment(repo: RepoRef, commentId: number, reaction: Reaction): Promise<void>;

  // Repository
  getPermission(repo: RepoRef, user: string): Promise<Permission>;
  getDefaultBranch(repo: RepoRef): Promise<string>;
  /** Create `branch` at `fromRef` (a branch name or sha). Idempotent when it already points there. */
  createBranch(repo: RepoRef, branch: string, fromRef: string): Promise<void>;
  deleteBranch(repo: RepoRef, branch: string): Promise<void>;
  /** Read a file on a ref; undefined when it does not exist. */
  getFile(repo: RepoRef, path: string, ref?: string): Promise<string | undefined>;
  cloneCredentials(repo: RepoRef): Promise<CloneCredentials>;

  // Pull requests
  openPullRequest(repo: RepoRef, pr: NewPullRequest): Promise<PullRequest>;
  getPullRequest(ref: IssueRef): Promise<PullRequest>;
  /** The open PR from `head`, if any (to avoid opening a second). */
  findPullRequest(repo: RepoRef, head: string): Promise<PullRequest | undefined>;
  listPullRequestFiles(ref: IssueRef): Promise<PullRequestFile[]>;
  getPullRequestDiff(ref: IssueRef, maxBytes: number): Promise<BoundedDiff>;
  mergePullRequest(
    ref: IssueRef,
    opts: { method: MergeMethod; expectedHeadSha?: string; title?: string },
  ): Promise<MergeResult>;
  updatePullRequestBranch(ref: IssueRef): Promise<void>;
  /** Issues the PR says it closes (Fixes/Closes/Resolves in body or commits). */
  closingIssues(ref: IssueRef): Promise<IssueRef[]>;
}

export const formatRepo = (repo: RepoRef): string => `${repo.owner}/${repo.name}`;

export const formatIssueRef = (ref: IssueRef, from?: RepoRef): string =>
  from && from.owner === ref.repo.owner && from.name === ref.repo.name
    ? `#${ref.number}`
    : `${formatRepo(ref.repo)}#${ref.number}`;

export const sameRepo = (a: RepoRef, b: RepoRef): boolean =>
  a.owner.toLowerCase() === b.owner.toLowerCase() && a.name.toLowerCase() === b.name.toLowerCase();

export const sameIssue = (a: IssueRef, b: IssueRef): boolean =>
  a.number === b.number && sameRepo(a.repo, b.repo);
