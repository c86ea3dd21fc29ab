-- One row the write probe rewrites (store-health.ts): on PostgreSQL a server that answers `SELECT 1`
-- may still refuse writes (disk full, read-only after a failover), and only a committed write shows it.
CREATE TABLE store_probe (id INTEGER PRIMARY KEY, written_at TEXT NOT NULL);
