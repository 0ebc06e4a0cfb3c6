-- Day and month rollups are closed once a day instead of added to by every scan (lib/analytics/store.ts,
-- closeScanDays): a batch spread over many links wrote three rows per link and grain; now it writes
-- its quarter-hour rows, and each UTC day's day and month rows are summed once from its raw rows
-- after the day ends. Reads take whole days from day rows only before closed_before, and from
-- quarter-hour rows after it, so every answer stays exact while a day waits to be closed.
--
-- daily_from: the writer adds a scan to its day and month rows itself when its UTC day begins before
-- this instant (a late scan of a closed day); later scans wait for the closing (raw row daily false).
-- closed_before: every UTC day before it has complete day and month rows. closed_before <= daily_from.
CREATE TABLE "scan_rollup_days" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "daily_from" TIMESTAMPTZ(3) NOT NULL,
    "closed_before" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "scan_rollup_days_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "scan_rollup_days_one_row" CHECK ("id"),
    CONSTRAINT "scan_rollup_days_closed_first" CHECK ("closed_before" <= "daily_from")
);

-- Today waits to be closed from now on: its day rows hold the scans written before this runs, and
-- the closing adds the later ones to them. Every earlier day's rows are complete.
INSERT INTO "scan_rollup_days" ("daily_from", "closed_before")
VALUES (date_trunc('day', now(), 'UTC'), date_trunc('day', now(), 'UTC'));

-- Whether the scan is in its day and month rows (false: its day waits to be closed). A constant
-- default: no table rewrite.
ALTER TABLE "scan_events" ADD COLUMN "daily" BOOLEAN NOT NULL DEFAULT true;
