// The one interface the rest of the bot uses to talk to a tracker, and the domain types it speaks.
// Adapters (github/, gitea/) map every API payload into these types; nothing outside src/forges/
// sees an octokit or Gitea type. Optional methods are capabilities a forge may lack.
import type { AppPermission } from './app-permission.ts';

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

/** A comment as a repository-wide listing gives it: with the issue or PR it is on. */
export interface RepoComment extends Comment {
  /** The author's account id (0 when the forge did not say). */
  authorId: number;
  issueNumber: number;
  isPullRequest: boolean;
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

/**
 * A PR as opened: `progressSent` when the open carried the bot's first report on its head; `created`
 * when this request made it (not an open PR from that head found instead): it has no reviews yet;
 * `feedback` when the open's answer carried all a feedback read reads (GitHub: the new PR with its
 * head's checks, reviews and comments, read in the open's request).
 */
export type OpenedPullRequest = PullRequest & {
  progressSent?: boolean;
  created?: boolean;
  feedback?: PullFeedback;
};

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

/** Cut `text` to at most `maxBytes` of UTF-8 without splitting a character. */
export const boundDiff = (text: string, maxBytes: number): BoundedDiff => {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { diff: text, truncated: false, totalBytes: bytes.length };
  let end = Math.max(0, maxBytes);
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { diff: bytes.subarray(0, end).toString('utf8'), truncated: true, totalBytes: bytes.length };
};

export type MergeMethod = 'merge' | 'squash' | 'rebase';

export interface MergeResult {
  /**
   * The merge commit. Undefined only after `readBack: false` on a forge whose merge answer does not
   * name it (Gitea): the caller finds it itself (in git) instead of a second request.
   */
  sha?: string;
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

/** A check on a commit, normalised from a GitHub check run, a GitHub commit status or a Gitea commit status. */
export interface CheckInfo {
  /** The check run's name, or the status context (`ci/build`). */
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  /** Set once completed: success and neutral and skipped pass; the rest fail. */
  conclusion?: CheckConclusion;
  /** The check's own title and summary (or a status's description): untrusted text. */
  summary: string;
  /** Line annotations a check run carries (GitHub); untrusted text. */
  annotations?: CheckAnnotation[];
  /** Where a person reads it (details/target URL); may be empty. */
  url: string;
  /** `check_run:<id>` or `status:<id>`; a check run from GitHub Actions also names its job for the log. */
  externalId: string;
  /** GitHub Actions job id, when the check run is an Actions job (its log can be read). */
  actionsJobId?: number;
  /** Who reported it (check run app slug or status creator): the bot's own checks are left out of a verdict. */
  reporter?: string;
  /** When it started or was reported (ISO); for the settle window. */
  startedAt?: string;
}

export type CheckConclusion =
  | 'success'
  | 'failure'
  | 'neutral'
  | 'cancelled'
  | 'skipped'
  | 'timed_out'
  | 'action_required'
  | 'stale'
  | 'error';

export interface CheckAnnotation {
  path: string;
  startLine: number;
  level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

/** The bot's own progress on a commit: a check run `blitz` (GitHub) or commit status `blitz` (Gitea). */
export interface ProgressReport {
  /**
   * `queued`: the opening report on a new PR's head (nothing read yet, the gate waiting for the review
   * leg and the build); GitHub writes it as an in-progress check run, Gitea as `pending`.
   */
  state: 'queued' | 'in_progress' | 'success' | 'failure' | 'neutral';
  /** One line: "review passed, build green". */
  title: string;
  /** Markdown, size-bounded by the adapter. */
  summary: string;
  /** The status page of the run. */
  detailsUrl?: string;
  /**
   * In progress, but only waiting on the legs a new PR's opening report already names (the review
   * leg, the build): the first such report after the opening one is not sent, its words left
   * standing (forges/opening-reports.ts). Anything else (a worker resumed, a change request, a hold)
   * is news and always sent.
   */
  waiting?: boolean;
  /**
   * In progress while the worker does what the bot resumed it for (or is about to be resumed with):
   * the report that resumed it said so already. It is sent only where the head's last `blitz` report
   * is not in progress already (Gitea: not pending, forges/gitea/statuses.ts; GitHub: checks.ts).
   */
  working?: boolean;
}

export interface Review {
  id: number;
  author: string;
  state: 'approved' | 'changes_requested' | 'commented' | 'dismissed' | 'pending';
  body: string;
  /** The head the review was given on; a later push makes a changes-requested review stale. */
  commitSha?: string;
  /** Gitea marks reviews on an older head stale; GitHub leaves it to the commit sha. */
  stale?: boolean;
  submittedAt?: string;
}

export interface ReviewComment {
  id: number;
  reviewId?: number;
  author: string;
  body: string;
  path: string;
  /** The line in the file the comment is on; undefined on an outdated or file-level comment. */
  line?: number;
  commitSha?: string;
  /** The first comment of the thread this one answers, if it is a reply. */
  inReplyTo?: number;
  createdAt: string;
}

/** An open PR with what the PR feedback loop reads of it: its head's checks, its reviews and review comments. */
export interface PullFeedback {
  pull: PullRequest;
  /** The checks on `pull.head.sha`. */
  checks: CheckInfo[];
  reviews: Review[];
  comments: ReviewComment[];
  /** How many comments the PR's conversation holds (not review comments), where the read counts them. */
  conversationComments?: number;
}

/** How `Forge.mergePullRequest` merges. */
export interface MergeOptions {
  method: MergeMethod;
  expectedHeadSha?: string;
  title?: string;
  /** false: no read of the PR after the merge for its merge commit where the answer lacks it. */
  readBack?: boolean;
  progress?: { sha: string; report: ProgressReport };
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
  /**
   * With `comment`: that comment is posted first, then the issue closed, in one request where the
   * forge allows it (GitHub's GraphQL, once the adapter knows the issue's node id), else two.
   */
  closeIssue(ref: IssueRef, opts?: { comment?: string }): Promise<void>;
  /**
   * Several closes, each with its comment, in as few requests as the forge allows (GitHub: one GraphQL
   * request for those whose node ids the adapter has read). Each close answers on its own, in order.
   */
  closeIssues?(closes: readonly { ref: IssueRef; comment: string }[]): Promise<PromiseSettledResult<void>[]>;
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
  upsertStickyComment(
    ref: IssueRef,
    marker: string,
    body: string,
    /** `fresh`: the marker is new (its run was created just now), so no comment is looked for first. */
    opts?: { fresh?: boolean },
  ): Promise<Comment>;
  listComments(ref: IssueRef): Promise<Comment[]>;
  /**
   * The comments of a repository's issues and PRs updated since `since` (ISO), oldest first, at most
   * `maxPages` pages; `complete` is false when more were left unread. Gitea only: what the bot reads
   * after an outage to find the commands whose webhooks it missed (intake/recover.ts).
   */
  listRepoComments?(
    repo: RepoRef,
    opts: { since: string; maxPages: number },
  ): Promise<{ comments: RepoComment[]; complete: boolean }>;
  reactToComment(repo: RepoRef, commentId: number, reaction: Reaction): Promise<void>;

  // Repository
  getPermission(repo: RepoRef, user: string): Promise<Permission>;
  getDefaultBranch(repo: RepoRef): Promise<string>;
  /** Create `branch` at `fromRef` (a branch name or sha). Idempotent when it already points there. */
  createBranch(repo: RepoRef, branch: string, fromRef: string): Promise<void>;
  deleteBranch(repo: RepoRef, branch: string): Promise<void>;
  /** How many commits `branch` holds that `base` does not (its unmerged work); undefined when it does not exist. */
  commitsAhead(repo: RepoRef, base: string, branch: string): Promise<number | undefined>;
  /** Points the existing `branch` at `toRef`'s head, whatever it held (a forced update). */
  resetBranch(repo: RepoRef, branch: string, toRef: string): Promise<void>;
  /** Read a file on a ref; undefined when it does not exist. */
  getFile(repo: RepoRef, path: string, ref?: string): Promise<string | undefined>;
  cloneCredentials(repo: RepoRef): Promise<CloneCredentials>;

  // Pull requests
  /** An open carries the bot's first progress report in the same request (`openPullRequest` `progress`). */
  opensWithProgress?: boolean;
  /**
   * Idempotent: when an open PR from `head` exists already, that one is returned, not a second.
   * `progress`: the bot's first `blitz` report on `sha` (the head as the bot's own git saw it), which a
   * forge that can sends with the open in one request; `progressSent` says it went on the PR's head.
   */
  openPullRequest(
    repo: RepoRef,
    pr: NewPullRequest,
    opts?: { progress?: { sha: string; report: ProgressReport } },
  ): Promise<OpenedPullRequest>;
  getPullRequest(ref: IssueRef): Promise<PullRequest>;
  /** The open PR from `head`, if any (to avoid opening a second). */
  findPullRequest(repo: RepoRef, head: string): Promise<PullRequest | undefined>;
  listPullRequestFiles(ref: IssueRef): Promise<PullRequestFile[]>;
  getPullRequestDiff(ref: IssueRef, maxBytes: number): Promise<BoundedDiff>;
  /** A merge carries the bot's last progress report in the same request (`mergePullRequest` `progress`). */
  mergesWithProgress?: boolean;
  /**
   * `progress` (only on a forge with `mergesWithProgress`): the bot's `blitz` report on `sha` (the head
   * being merged), written before the merge is tried, in the same request where the adapter can, else
   * as `reportProgress` would, first. A refused merge throws as without it; the report stands, and is
   * the caller's to correct.
   */
  mergePullRequest(ref: IssueRef, opts: MergeOptions): Promise<MergeResult>;
  updatePullRequestBranch(ref: IssueRef): Promise<void>;
  /** Issues the PR says it closes (Fixes/Closes/Resolves in body or commits). */
  closingIssues(ref: IssueRef): Promise<IssueRef[]>;

  // Checks and reviews (the PR feedback loop). Optional until every Forge implements them.
  /** Every check on `sha`: check runs and commit statuses (GitHub), commit statuses (Gitea). */
  listChecks?(repo: RepoRef, sha: string): Promise<CheckInfo[]>;
  /** The last `maxBytes` of a GitHub Actions job's log; undefined where there is none to read. */
  jobLogTail?(repo: RepoRef, jobId: number, maxBytes: number): Promise<string | undefined>;
  /**
   * Create or update the bot's own check `blitz` on `sha`. `first`: the bot has not reported on this
   * head before (it has just opened its PR), so there is no check of its own to look for.
   */
  reportProgress?(
    repo: RepoRef,
    sha: string,
    report: ProgressReport,
    opts?: { first?: boolean },
  ): Promise<ReportedInstead | undefined>;
  /**
   * The PR, its head's checks, its reviews and review comments in as few requests as the forge allows.
   * `pull`: the PR as the forge answered it moments ago (the caller opened it in this reconcile call),
   * not read again where the PR is a request of its own (Gitea); one the open `created` has no reviews
   * or review comments to read yet where they are a request of their own (Gitea); one whose open answered
   * with its `feedback` is that feedback, not read again (GitHub).
   */
  readPullFeedback?(ref: IssueRef, opts?: { pull?: OpenedPullRequest }): Promise<PullFeedback>;
  listReviews?(ref: IssueRef): Promise<Review[]>;
  listReviewComments?(ref: IssueRef): Promise<ReviewComment[]>;
  /** Answer on the thread of review comment `commentId`. */
  replyToReviewComment?(ref: IssueRef, commentId: number, body: string): Promise<ReviewComment>;

  /** A webhook about `repo` arrived: what the adapter keeps (forges/kept-reads.ts) is updated or dropped. */
  observeEvent?(event: ObservedEvent): void;
  /**
   * The page where an admin of the repository's owner reviews and accepts the App's permissions (GitHub:
   * the installation's settings); undefined where the bot cannot tell (token auth).
   */
  installationSettingsPage?(repo: RepoRef): Promise<string | undefined>;
  /**
   * The App permissions the bot can use on `repo` now: what its credential carries (GitHub: its
   * installation token; a grant reaches it in a new one, minted once the old expires or GitHub says new
   * permissions were accepted) that the installation still holds. Absent where the bot cannot tell
   * (token auth, Gitea).
   */
  heldPermissions?(repo: RepoRef): Promise<Readonly<Record<string, string>>>;
}

/** A forge event as far as kept reads care (intake's normalised ForgeEvent fits). */
export interface ObservedEvent {
  kind: string;
  repo: RepoRef;
  issueNumber?: number;
  /** `checks-changed`: the commit whose checks changed. */
  headSha?: string;
  /** `review-changed`: the PR reviewed or commented on. */
  number?: number;
}

/**
 * A report the forge took another way than asked: GitHub without `checks: write` takes the bot's `blitz`
 * report as a commit status of that name (what the PR gate reads of it is the same), or, without
 * `statuses: write` either, not at all (`nothing`: the report is the bot's courtesy; the gate needs none).
 */
export interface ReportedInstead {
  as: 'status' | 'nothing';
  /** The permission the installation lacks for the check run. */
  lacking: AppPermission;
}

export const formatRepo = (repo: RepoRef): string => `${repo.owner}/${repo.name}`;

/** `owner/name` back into a RepoRef (formatRepo's inverse). */
export const repoRefOf = (fullName: string): RepoRef => {
  const [owner, name] = fullName.split('/');
  return { owner: owner ?? '', name: name ?? '' };
};

export const formatIssueRef = (ref: IssueRef, from?: RepoRef): string =>
  from && from.owner === ref.repo.owner && from.name === ref.repo.name
    ? `#${ref.number}`
    : `${formatRepo(ref.repo)}#${ref.number}`;

export const sameRepo = (a: RepoRef, b: RepoRef): boolean =>
  a.owner.toLowerCase() === b.owner.toLowerCase() && a.name.toLowerCase() === b.name.toLowerCase();

export const sameIssue = (a: IssueRef, b: IssueRef): boolean =>
  a.number === b.number && sameRepo(a.repo, b.repo);
