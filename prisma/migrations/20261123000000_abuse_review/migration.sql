-- Reports no longer block a link. A reporter (now a network: IPv4 /24, IPv6 /64) has at most one
-- pending report per link; once an operator has reviewed them, the same network may report again.
DROP INDEX "abuse_reports_link_id_reporter_hash_key";
CREATE UNIQUE INDEX "abuse_reports_pending_link_id_reporter_hash_key" ON "abuse_reports"("link_id", "reporter_hash") WHERE "reviewed_at" IS NULL;

-- CreateTable
CREATE TABLE "abuse_report_checks" (
    "link_id" TEXT NOT NULL,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "abuse_report_checks_pkey" PRIMARY KEY ("link_id")
);

-- AddForeignKey
ALTER TABLE "abuse_report_checks" ADD CONSTRAINT "abuse_report_checks_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Links that reports alone blocked (the old threshold rule; no trusted verdict, no operator) go back
-- to quarantine afresh, where every visit runs a live check; their reports stay pending for review.
UPDATE "links"
SET "status" = 1, "abuse_reason" = NULL, "clean_checks" = 0, "last_counted_check_at" = NULL,
    "quarantined_at" = CURRENT_TIMESTAMP, "updated_at" = CURRENT_TIMESTAMP
WHERE "status" = 2 AND "abuse_reason" ~ '^Reported as abusive by [0-9]+ people; under review$';
