-- Which replica is processing an accepted delivery, and until when: another replica takes over a
-- delivery only once its lease ran out (the holder died), so a live replica's work is not replayed.
ALTER TABLE deliveries ADD COLUMN lease_holder TEXT;
ALTER TABLE deliveries ADD COLUMN lease_until TEXT;
