-- Scan analytics: parsed facts on the raw events, per-day visitor sets for uniques, idempotent
-- batch claims, and rollups that answer long ranges (lib/analytics/store.ts writes all four in
-- one statement per batch).

-- Raw events keep the referrer's host only: a full referring URL may carry someone's query string.
ALTER TABLE "scan_events"
  ADD COLUMN "referrer_host" TEXT,
  ADD COLUMN "device" TEXT,
  ADD COLUMN "browser" TEXT,
  ADD COLUMN "os" TEXT,
  ADD COLUMN "bot" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "link_unique" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "workspace_unique" BOOLEAN NOT NULL DEFAULT false;

UPDATE "scan_events"
SET "referrer_host" = lower(substring("referrer" from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([A-Za-z0-9.-]+)'))
WHERE "referrer" IS NOT NULL;

ALTER TABLE "scan_events" DROP COLUMN "referrer";

-- One row per (scope, UTC day, visitor hash): the primary key decides, in the writing statement,
-- which scan is a visitor's first of the day for a link and for its workspace, across instances.
CREATE TABLE "scan_visitors" (
    "day" DATE NOT NULL,
    "scope_id" TEXT NOT NULL,
    "visitor" BYTEA NOT NULL,

    CONSTRAINT "scan_visitors_pkey" PRIMARY KEY ("day", "scope_id", "visitor")
);

-- A batch id claimed in the same statement that writes the batch: a retry of a batch whose
-- commit succeeded but whose answer was lost writes nothing twice.
CREATE TABLE "scan_batches" (
    "id" TEXT NOT NULL,
    "written_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scan_batches_pkey" PRIMARY KEY ("id")
);

-- Counts per scope (a link, or link_id '' for the whole workspace), grain (15-minute or UTC-day
-- buckets), dimension and value. The key order serves every query: one workspace, one grain,
-- one dimension, one scope, a bucket range.
CREATE TABLE "scan_rollups" (
    "workspace_id" TEXT NOT NULL,
    "grain" SMALLINT NOT NULL,
    "dimension" SMALLINT NOT NULL,
    "link_id" TEXT NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "value" TEXT NOT NULL,
    "scans" BIGINT NOT NULL DEFAULT 0,
    "uniques" BIGINT NOT NULL DEFAULT 0,
    "bots" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "scan_rollups_pkey" PRIMARY KEY ("workspace_id", "grain", "dimension", "link_id", "bucket", "value")
);

-- Scans recorded before this migration enter the rollups once (without uniques: they had no
-- visitor hash; device, browser and OS unknown: they were never parsed).
INSERT INTO "scan_rollups" ("workspace_id", "grain", "dimension", "link_id", "bucket", "value", "scans")
SELECT l."workspace_id", g.grain, d.dimension, s.link_key, g.bucket, d.value, count(*)
FROM "scan_events" e
JOIN "links" l ON l."id" = e."link_id"
CROSS JOIN LATERAL (VALUES (e."link_id"), ('')) s(link_key)
CROSS JOIN LATERAL (VALUES
  (15::smallint, date_bin('15 minutes', e."occurred_at", TIMESTAMPTZ '2000-01-01 00:00:00+00')),
  (1440::smallint, date_trunc('day', e."occurred_at", 'UTC'))) g(grain, bucket)
CROSS JOIN LATERAL (VALUES
  (0::smallint, ''),
  (1::smallint, coalesce(e."country", 'unknown')),
  (2::smallint, 'unknown'),
  (3::smallint, 'unknown'),
  (4::smallint, 'unknown'),
  (5::smallint, coalesce(e."referrer_host", 'direct')),
  (6::smallint, CASE WHEN e."via_qr" THEN 'qr' ELSE 'link' END)) d(dimension, value)
GROUP BY 1, 2, 3, 4, 5, 6;
