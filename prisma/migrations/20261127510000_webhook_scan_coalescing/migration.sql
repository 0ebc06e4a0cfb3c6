-- A link.scanned message not tried yet names its link, so a later batch's scans of that link join it instead of
-- making a message of their own; the first attempt clears it (a message a receiver may have seen never changes).
-- A new nullable column: nothing existing is rewritten, and older messages are never joined.
ALTER TABLE "webhook_deliveries" ADD COLUMN "joinable_link_id" TEXT;
-- The newest joinable message of a link to an endpoint, in O(log n) however much the outbox holds.
CREATE INDEX "webhook_deliveries_joinable_idx" ON "webhook_deliveries"("webhook_id", "joinable_link_id", "id") WHERE "joinable_link_id" IS NOT NULL;
