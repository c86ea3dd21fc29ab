-- Runner agents on other hosts: one bearer token per runner (only its sha256 is kept), what the
-- runner last advertised, and the attempt reports received from runners (the highest sequence
-- number applied per attempt, so a repeated or flushed-twice report changes nothing).
CREATE TABLE runner_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  advert TEXT,
  last_seen_at TEXT
);

CREATE UNIQUE INDEX runner_tokens_live_name ON runner_tokens (name) WHERE revoked_at IS NULL;

CREATE TABLE runner_reports (
  attempt_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  issue_repo TEXT NOT NULL,
  issue_number INTEGER NOT NULL,
  job_queue TEXT NOT NULL,
  job_id TEXT NOT NULL,
  runner_name TEXT NOT NULL,
  last_seq BIGINT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE INDEX runner_reports_by_job ON runner_reports (job_queue, job_id);
