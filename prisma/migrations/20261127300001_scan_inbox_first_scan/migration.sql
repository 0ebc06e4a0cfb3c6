-- The earliest scan of each parked batch: the retention job keeps the visitor sets of every day a
-- parked batch still has to write (lib/analytics/store.ts, pruneScanData), so a batch parked for
-- longer than the sets are usually kept still counts each visitor once a day.
ALTER TABLE "scan_inbox" ADD COLUMN "first_scan_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "scan_inbox" ALTER COLUMN "first_scan_at" DROP DEFAULT;
