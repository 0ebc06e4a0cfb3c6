-- The scan writer adds each batch's month rows in its own statement, beside the quarter-hour and
-- day rows they sum (lib/analytics/store.ts), instead of statement triggers that re-read the day
-- rows the statement had written. Measured on a batch of 5,000 scans spread over 20,000 links
-- (bench/batch-plan.ts --explain): the triggers stored every written row in transition tables,
-- sorted and merge-joined the UPDATE's old and new rows on six columns, then upserted the months
-- in two more passes, a third of the batch's time. Month = sum of its UTC days still holds: both
-- are written by the one statement that writes a batch, so they commit together or not at all.
-- (Nothing else writes day rows: an instance still running the previous version during a deploy
-- would write day rows without months, so stop the old instances' writers before migrating, as
-- `npm start` does by migrating on boot.)
DROP TRIGGER "scan_rollups_months_insert" ON "scan_rollups";
DROP TRIGGER "scan_rollups_months_update" ON "scan_rollups";
DROP FUNCTION "scan_rollups_months_after_insert"();
DROP FUNCTION "scan_rollups_months_after_update"();

-- Link first, then grain and dimension: a batch touches each of its links' rows for all grains and
-- dimensions at once, and they now sit side by side in the index (a few leaf pages a link) instead
-- of in 21 separate regions of it (one leaf page a link, grain and dimension: 105,000 pages for a
-- batch of 5,000 links spread over a million). Every read names the workspace, the scope (link_id),
-- the grain and the dimension, then a bucket range, so each stays one index-only range scan.
ALTER TABLE "scan_rollups"
  DROP CONSTRAINT "scan_rollups_pkey",
  ADD CONSTRAINT "scan_rollups_pkey" PRIMARY KEY ("workspace_id", "link_id", "grain", "dimension", "bucket", "value") INCLUDE ("scans", "uniques", "bots");
