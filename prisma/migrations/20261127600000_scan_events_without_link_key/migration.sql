-- A raw scan row's link is no longer checked by a foreign key. The writer's statement joins links
-- and leaves out scans of a link that does not exist, and links are never deleted (workspaces
-- restrict it, no operation does it). The key's check ran once a row: a query of links that
-- locked the link's row (FOR KEY SHARE, a write to its page), a tenth of a batch of 5,000 spread
-- scans (bench/batch-plan.ts, 287-288 ms against 309-324 ms).
ALTER TABLE "scan_events" DROP CONSTRAINT "scan_events_link_id_fkey";
