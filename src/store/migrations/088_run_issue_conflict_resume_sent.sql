-- When the last conflict resume was sent (issue 37): a resume queued for another host that has not
-- started within its lease counts as a spent try (plan/merge-conflict.ts), so a job dropped, failed or
-- lost with its host does not leave the issue waiting forever. A bounce clears it with the others.
ALTER TABLE run_issues ADD COLUMN conflict_resume_sent_at TEXT;
