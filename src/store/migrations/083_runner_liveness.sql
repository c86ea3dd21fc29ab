-- When a runner stopped being heard from and the bot marked it lost (cleared when it is heard again),
-- and how far its clock was off the bot's at its last request (its clock minus the bot's, in ms).
ALTER TABLE runner_tokens ADD COLUMN lost_at TEXT;
ALTER TABLE runner_tokens ADD COLUMN clock_skew_ms INTEGER;
