-- AlterTable
ALTER TABLE "links" ADD COLUMN "quarantined_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN "clean_checks" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "last_counted_check_at" TIMESTAMPTZ(3),
ADD COLUMN "last_checked_at" TIMESTAMPTZ(3),
ADD COLUMN "abuse_reason" TEXT;

-- CreateTable
CREATE TABLE "scan_events" (
    "id" BIGSERIAL NOT NULL,
    "link_id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "user_agent" TEXT,
    "referrer" TEXT,
    "country" TEXT,
    "via_qr" BOOLEAN NOT NULL,

    CONSTRAINT "scan_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "abuse_reports" (
    "id" TEXT NOT NULL,
    "link_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "details" TEXT,
    "contact" TEXT,
    "reporter_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "reviewed_at" TIMESTAMPTZ(3),

    CONSTRAINT "abuse_reports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "scan_events_link_id_occurred_at_idx" ON "scan_events"("link_id", "occurred_at");

-- CreateIndex
CREATE UNIQUE INDEX "abuse_reports_link_id_reporter_hash_key" ON "abuse_reports"("link_id", "reporter_hash");

-- The background re-check job walks quarantined links by when they were last checked.
CREATE INDEX "links_quarantine_recheck_idx" ON "links"("last_checked_at" ASC NULLS FIRST) WHERE "status" = 1;

-- AddForeignKey
ALTER TABLE "scan_events" ADD CONSTRAINT "scan_events_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "abuse_reports" ADD CONSTRAINT "abuse_reports_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;
