-- The counts ride in the primary key's index (INCLUDE), so every analytics query is an
-- index-only scan: rollup rows of one dimension are scattered over the heap (each batch writes
-- all dimensions together), and reading them from the heap cost most of a long range's time.
ALTER TABLE "scan_rollups"
  DROP CONSTRAINT "scan_rollups_pkey",
  ADD CONSTRAINT "scan_rollups_pkey" PRIMARY KEY ("workspace_id", "grain", "dimension", "link_id", "bucket", "value") INCLUDE ("scans", "uniques", "bots");
