-- UTC-month rollups (grain 0: a month has no fixed length in minutes), so a long range reads a
-- dozen rows per scope instead of a row per day, and an index for the workspace's per-link totals
-- (group_by=link), read bucket by bucket across all its links instead of link by link.

-- The month rows follow the day rows inside the database, in the statement that writes the day
-- rows: whatever writes a day row (this version's writer, an older instance still running during a
-- deploy, a seed) adds the same counts to its month, so month = sum of its UTC days, always.
-- Statement-level triggers see a whole batch at once (one grouped upsert per batch, in key order
-- like the writer's, after the writer's own rows: concurrent writers lock rows in one order).
-- Rollup rows are only ever inserted or incremented, never deleted, and never change their key.
CREATE FUNCTION "scan_rollups_months_after_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- The month upsert below fires these triggers again; its rows are not day rows, so it stops here.
  IF NOT EXISTS (SELECT 1 FROM inserted WHERE grain = 1440) THEN RETURN NULL; END IF;
  INSERT INTO scan_rollups AS r (workspace_id, grain, dimension, link_id, bucket, value, scans, uniques, bots)
  SELECT workspace_id, 0::smallint, dimension, link_id, date_trunc('month', bucket, 'UTC'), value, sum(scans), sum(uniques), sum(bots)
  FROM inserted WHERE grain = 1440
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (workspace_id, grain, dimension, link_id, bucket, value) DO UPDATE
    SET scans = r.scans + excluded.scans, uniques = r.uniques + excluded.uniques, bots = r.bots + excluded.bots;
  RETURN NULL;
END $$;

CREATE FUNCTION "scan_rollups_months_after_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM updated WHERE grain = 1440) THEN RETURN NULL; END IF;
  INSERT INTO scan_rollups AS r (workspace_id, grain, dimension, link_id, bucket, value, scans, uniques, bots)
  SELECT n.workspace_id, 0::smallint, n.dimension, n.link_id, date_trunc('month', n.bucket, 'UTC'), n.value,
    sum(n.scans - o.scans), sum(n.uniques - o.uniques), sum(n.bots - o.bots)
  FROM updated n JOIN previous o USING (workspace_id, grain, dimension, link_id, bucket, value)
  WHERE n.grain = 1440
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (workspace_id, grain, dimension, link_id, bucket, value) DO UPDATE
    SET scans = r.scans + excluded.scans, uniques = r.uniques + excluded.uniques, bots = r.bots + excluded.bots;
  RETURN NULL;
END $$;

-- Creating the triggers locks the table against writers until this migration commits (it runs in
-- one transaction), so the backfill below sees every day row written before, and the triggers
-- every one written after: no scan is missed or counted twice.
CREATE TRIGGER "scan_rollups_months_insert" AFTER INSERT ON "scan_rollups"
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION "scan_rollups_months_after_insert"();
CREATE TRIGGER "scan_rollups_months_update" AFTER UPDATE ON "scan_rollups"
  REFERENCING OLD TABLE AS previous NEW TABLE AS updated FOR EACH STATEMENT EXECUTE FUNCTION "scan_rollups_months_after_update"();

INSERT INTO "scan_rollups" ("workspace_id", "grain", "dimension", "link_id", "bucket", "value", "scans", "uniques", "bots")
SELECT "workspace_id", 0::smallint, "dimension", "link_id", date_trunc('month', "bucket", 'UTC'), "value", sum("scans"), sum("uniques"), sum("bots")
FROM "scan_rollups" WHERE "grain" = 1440
GROUP BY 1, 2, 3, 4, 5, 6;

-- group_by=link over a workspace: per grain, one range scan of bucket then link over only the
-- links' totals (dimension 0, link_id not ''), with the counts in the index (index-only).
CREATE INDEX "scan_rollups_link_totals_idx" ON "scan_rollups" ("workspace_id", "grain", "bucket", "link_id") INCLUDE ("scans", "uniques")
  WHERE "dimension" = 0 AND "link_id" <> '';
