-- A person's steering of one issue of a run (issue 18): `/blitz retry #n` and `/blitz unhold #n` start a
-- new allowance, so failures are counted only after the attempt named here ('-' when the issue had
-- none yet); `/blitz skip #n` leaves the issue out of the run (open on the tracker) until a retry.
ALTER TABLE run_issues ADD COLUMN retried_after TEXT;
ALTER TABLE run_issues ADD COLUMN skipped INTEGER NOT NULL DEFAULT 0;
