-- Routing rules and scheduled repoints, kept on the link so resolution reads them with the link in
-- one lookup and the cache holds them. Nullable without a default: adding them rewrites nothing.
-- rules: [{when: {country?, device?, os?, language?}, destination}], first match wins.
-- schedule: [{at, destination}] in time order, entries not yet folded into destination.
ALTER TABLE "links" ADD COLUMN "rules" JSONB;
ALTER TABLE "links" ADD COLUMN "schedule" JSONB;
-- Which destination served a scan: the index of the rule that matched, null for the link's own.
ALTER TABLE "scan_events" ADD COLUMN "served_rule" SMALLINT;
-- The background fold finds links whose first scheduled repoint is due; the schedule is kept in
-- time order, so its first entry's time is the one to compare.
CREATE INDEX "links_schedule_due_idx" ON "links" ((("schedule"->0->>'at')::bigint)) WHERE "schedule" IS NOT NULL;
