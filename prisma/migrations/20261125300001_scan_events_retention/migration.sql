-- The retention's prune finds raw events older than its cutoff through this index, in chunks, and
-- when there are none it knows at once: without it, each run scanned every retained event.
CREATE INDEX "scan_events_occurred_at_idx" ON "scan_events" ("occurred_at");
