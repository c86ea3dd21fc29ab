-- Deliveries seen from each forge, and the commands (intents) authorised people asked for.
-- A delivery id counts once: the partial unique index covers the outcomes that consumed the id;
-- duplicate and rejected sightings are recorded beside it without taking the id.
CREATE TABLE deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  forge TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  event TEXT NOT NULL,
  action TEXT,
  outcome TEXT NOT NULL CHECK (outcome IN ('accepted', 'ignored', 'duplicate', 'rejected')),
  reason TEXT,
  received_at TEXT NOT NULL,
  processed_at TEXT
);

CREATE UNIQUE INDEX deliveries_first_sighting
  ON deliveries (forge, delivery_id)
  WHERE outcome IN ('accepted', 'ignored');

CREATE TABLE intents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  forge TEXT NOT NULL,
  repo TEXT NOT NULL,
  issue_number INTEGER,
  command TEXT NOT NULL,
  sender TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'queued',
  created_at TEXT NOT NULL,
  UNIQUE (forge, delivery_id, seq)
);
