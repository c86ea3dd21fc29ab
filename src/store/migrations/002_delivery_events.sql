-- The normalised events of an accepted delivery, kept until it is processed, so a delivery answered
-- just before a crash or restart is still processed when the bot starts again.
ALTER TABLE deliveries ADD COLUMN events TEXT;
