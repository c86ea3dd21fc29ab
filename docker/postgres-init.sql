-- Run once by the postgres image on an empty volume: the schema DATABASE_URL names (?schema=blitz).
CREATE SCHEMA IF NOT EXISTS blitz AUTHORIZATION blitz;
