-- Conflicts go back to the session that wrote the work (issue 37): how many times this pass's worker
-- was resumed to merge the integration branch in, and the attempt's launch time when the last such
-- resume was sent (while the attempt still shows it, the resume has not started: a queued job). A
-- bounce clears both: its redo starts from scratch.
ALTER TABLE run_issues ADD COLUMN conflict_resumes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run_issues ADD COLUMN conflict_resume_at TEXT;
