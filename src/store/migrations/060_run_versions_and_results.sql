-- One writer of run state (issue 17). `version` counts the writes of a run's state, progress and
-- options: a write names the version it was computed from, and a stale one fails (StaleRunWriteError)
-- instead of overwriting what it did not read. Background work (a build, a smoke check) never writes
-- the run: it adds a row here and asks for a pass, and the pass folds the rows into the run's progress
-- under the run lock, then drops them.
ALTER TABLE runs ADD COLUMN version INTEGER NOT NULL DEFAULT 0;

CREATE TABLE run_results (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  recorded_at TEXT NOT NULL
);

CREATE INDEX run_results_by_run ON run_results (run_id, id);
