-- One open attempt per issue of a run, kept by the store: a job delivered again after its issue was
-- dispatched anew, or two deliveries racing, start one worker. The ledgers answer the second start
-- (and a resume that would reopen a second attempt) as OpenAttemptError (runner/types.ts).
-- A database from before may hold two open attempts of one issue: every one but the newest is closed
-- first as `cancelled`, ended when the newest started, its summary saying it was superseded. The
-- record is the attempt as text; an open one has no outcome, so the fields go before its last brace.
UPDATE attempts
SET open = 0,
  record = substr(record, 1, length(record) - 1)
    || ',"outcome":"cancelled","endedAt":"'
    || (SELECT max(n.started_at) FROM attempts n
        WHERE n.open = 1 AND n.run_id = attempts.run_id AND n.issue_repo = attempts.issue_repo
          AND n.issue_number = attempts.issue_number)
    || '","failureSummary":"Superseded: a later attempt of this issue was open, and one attempt runs an issue."}'
WHERE open = 1 AND EXISTS (
  SELECT 1 FROM attempts n
  WHERE n.open = 1 AND n.run_id = attempts.run_id AND n.issue_repo = attempts.issue_repo
    AND n.issue_number = attempts.issue_number
    AND (n.started_at > attempts.started_at OR (n.started_at = attempts.started_at AND n.id > attempts.id))
);
CREATE UNIQUE INDEX attempts_one_open ON attempts (run_id, issue_repo, issue_number) WHERE open = 1;
