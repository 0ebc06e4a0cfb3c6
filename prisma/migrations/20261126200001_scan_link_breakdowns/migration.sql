-- A link's scans by country, device, browser, OS, referrer and source: one row per (grain, bucket)
-- and combination of the six values, with the counts, instead of one row per dimension and value.
-- A batch of scans spread over many links wrote 21 rollup rows for each link it touched (3 grains
-- × 7 dimensions); now it writes 3 total rows (scan_rollups, dimension 0) and, for visits alike in
-- all six values, 3 rows here: the batch writes a third of the rows, and each of a link's
-- breakdowns is the sum of this table's rows by one column (lib/analytics/query.ts).
-- The workspace's own rows (link_id '') stay per dimension in scan_rollups: they are few (a
-- workspace's batch shares them), and a workspace's breakdowns over many links stay short reads.
-- Uniques: a row counts the first scans of the UTC day (per link and visitor) it holds, as the
-- dimension rows did, so a breakdown's uniques are unchanged.
-- Link dimension rows written before this migration stay in scan_rollups and are read beside
-- this table's (each scan is in exactly one of the two), so nothing is converted or lost.
CREATE TABLE "scan_link_breakdowns" (
    "workspace_id" TEXT NOT NULL,
    "link_id" TEXT NOT NULL,
    "grain" SMALLINT NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "country" TEXT NOT NULL,
    "device" TEXT NOT NULL,
    "browser" TEXT NOT NULL,
    "os" TEXT NOT NULL,
    "referrer" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "scans" BIGINT NOT NULL DEFAULT 0,
    "uniques" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "scan_link_breakdowns_pkey" PRIMARY KEY ("workspace_id", "link_id", "grain", "bucket", "country", "device", "browser", "os", "referrer", "source") INCLUDE ("scans", "uniques")
);
