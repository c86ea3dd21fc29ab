-- Why an issue waits in its state (issue 35): the last action on it that failed (a forge that answered
-- 404 on its PR, a runner that refused), in words, so the status pages show it beside the state. The
-- next action on the issue that succeeds clears it.
ALTER TABLE run_issues ADD COLUMN wait_reason TEXT;
