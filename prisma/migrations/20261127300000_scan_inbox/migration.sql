-- Batches of enriched scans a writer behind the door parked, to be rolled up as it catches up
-- (lib/analytics/store.ts, parkScanBatch and writeOldestParkedBatch): one row a batch, its scans as
-- the scan stream's message text (visitor hashes, never an address). Written once and read once,
-- in parked order; taken out in the transaction that writes the batch.
CREATE TABLE "scan_inbox" (
    "batch_id" TEXT NOT NULL,
    "parked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "scans" INTEGER NOT NULL,
    "body" TEXT NOT NULL,

    CONSTRAINT "scan_inbox_pkey" PRIMARY KEY ("batch_id")
);

CREATE INDEX "scan_inbox_parked_at_batch_id_idx" ON "scan_inbox"("parked_at", "batch_id");

-- Not compressed: compressing megabytes a second would take CPU from the door for space the table
-- gives back as soon as the writer catches up.
ALTER TABLE "scan_inbox" ALTER COLUMN "body" SET STORAGE EXTERNAL;
