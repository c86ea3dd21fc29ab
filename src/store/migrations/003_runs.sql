-- Runs the orchestrator drives, the issues inside each run, and the runner's attempt ledger.
-- The tracker stays the source of truth for issue state: these tables hold what it cannot (which
-- PR belongs to which issue, the merge sha, attempts, build/smoke/ship progress, the dashboard id).
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  forge TEXT NOT NULL,
  installation_id INTEGER,
  repo TEXT NOT NULL,
  kind TEXT NOT NULL,
  milestone_number INTEGER NOT NULL,
  milestone_title TEXT NOT NULL,
  slug TEXT NOT NULL,
  trigger_issue INTEGER,
  options TEXT NOT NULL,
  state TEXT NOT NULL,
  integration_branch TEXT NOT NULL,
  dashboard_comment_id INTEGER,
  -- build / smoke / ship status, budget verdict, reports already posted: JSON the orchestrator owns.
  progress TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- At most one live run per milestone: a second `/blitz M1` finds this one instead of starting another.
CREATE UNIQUE INDEX runs_one_live_per_milestone
  ON runs (forge, repo, milestone_number)
  WHERE state NOT IN ('done', 'cancelled');

CREATE TABLE run_issues (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  issue_repo TEXT NOT NULL,
  issue_number INTEGER NOT NULL,
  state TEXT NOT NULL,
  branch TEXT,
  worktree TEXT,
  pr_number INTEGER,
  review_posted INTEGER NOT NULL DEFAULT 0,
  merged_sha TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  -- Set when the issue was bounced: the id of the last attempt of the bounced pass; only
  -- attempts recorded after it count for the current pass.
  bounced_after TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (run_id, issue_repo, issue_number)
);

CREATE TABLE attempts (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  issue_repo TEXT NOT NULL,
  issue_number INTEGER NOT NULL,
  open INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX attempts_by_run ON attempts (run_id);
CREATE INDEX attempts_by_issue ON attempts (issue_repo, issue_number);
CREATE INDEX attempts_open ON attempts (open) WHERE open = 1;
