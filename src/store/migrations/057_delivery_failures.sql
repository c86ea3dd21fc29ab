-- Deliveries whose processing keeps failing (a repository the bot cannot read, a forge answering 500):
-- how many times it failed, the last error in words, when it may be tried again, and when it was given
-- up on. A failed delivery is never replayed; the status page and /metrics show it.
ALTER TABLE deliveries ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE deliveries ADD COLUMN retry_after TEXT;
ALTER TABLE deliveries ADD COLUMN failed_at TEXT;
ALTER TABLE deliveries ADD COLUMN last_error TEXT;
