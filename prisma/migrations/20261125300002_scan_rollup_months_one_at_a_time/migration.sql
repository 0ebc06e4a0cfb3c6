-- A statement's month rows are upserted in two passes, each in key order: its updated day rows'
-- months (the UPDATE trigger fires first), then its inserted day rows'. Two batches written at
-- once, each with late scans in two months, could take month rows in crossed order between the
-- passes and deadlock; PostgreSQL would abort one, and the buffer would write it again (nothing
-- lost, but a failed write and its error line). So the month passes take one transaction-level
-- advisory lock first, held until the batch's statement commits: month rows are only ever taken
-- by the writer holding it, so it waits for no one, and the others wait for it before taking any.
-- (The key is this lock's own; lib/db/migrate.ts holds 72707369 while migrating.)

CREATE OR REPLACE FUNCTION "scan_rollups_months_after_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- The month upsert below fires these triggers again; its rows are not day rows, so it stops here.
  IF NOT EXISTS (SELECT 1 FROM inserted WHERE grain = 1440) THEN RETURN NULL; END IF;
  PERFORM pg_advisory_xact_lock(7206104301);
  INSERT INTO scan_rollups AS r (workspace_id, grain, dimension, link_id, bucket, value, scans, uniques, bots)
  SELECT workspace_id, 0::smallint, dimension, link_id, date_trunc('month', bucket, 'UTC'), value, sum(scans), sum(uniques), sum(bots)
  FROM inserted WHERE grain = 1440
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (workspace_id, grain, dimension, link_id, bucket, value) DO UPDATE
    SET scans = r.scans + excluded.scans, uniques = r.uniques + excluded.uniques, bots = r.bots + excluded.bots;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "scan_rollups_months_after_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM updated WHERE grain = 1440) THEN RETURN NULL; END IF;
  PERFORM pg_advisory_xact_lock(7206104301);
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
