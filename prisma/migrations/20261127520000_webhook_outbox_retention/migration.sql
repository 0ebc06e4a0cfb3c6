-- The worker deletes messages a week after they were written once they are delivered or failed for good: the oldest
-- of them, found here without reading the ones still waiting.
CREATE INDEX "webhook_deliveries_finished_idx" ON "webhook_deliveries"("created_at") WHERE "state" <> 'pending';
-- Deleting a message deletes its attempts (ON DELETE CASCADE): found by this index, not by reading the whole log.
CREATE INDEX "webhook_attempts_delivery_id_idx" ON "webhook_attempts"("delivery_id");
