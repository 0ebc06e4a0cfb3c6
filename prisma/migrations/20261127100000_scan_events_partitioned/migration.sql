-- Raw scan events partitioned by UTC day (PostgreSQL's declarative partitioning, no extension), so
-- the retention drops a whole day at once instead of deleting its rows from one table holding
-- every retained day (docs/adr/0006-scan-events-by-day.md says why a day, and what else was chosen).
--
-- The existing table is not copied: it becomes the first partition, for every instant before the
-- start of tomorrow (UTC), so converting it reads it once (to index it and check its bounds) and
-- moves only rows dated tomorrow or later. It stays until the retention has passed its upper bound,
-- deleting its rows as before meanwhile, then goes whole. Day partitions are created ahead by the
-- retention job (lib/analytics/store.ts); a scan of a day without one lands in the default
-- partition, and the job moves it into its day when it creates it. All of this runs in the
-- migration's one transaction: the rename below locks the table against writers until it commits.

ALTER TABLE "scan_events" RENAME TO "scan_events_legacy";
ALTER TABLE "scan_events_legacy" RENAME CONSTRAINT "scan_events_pkey" TO "scan_events_legacy_pkey";
ALTER INDEX "scan_events_link_id_occurred_at_idx" RENAME TO "scan_events_legacy_link_id_occurred_at_idx";
-- The new primary key starts with the time and serves the retention's range instead.
DROP INDEX "scan_events_occurred_at_idx";

CREATE TABLE "scan_events" (LIKE "scan_events_legacy" INCLUDING DEFAULTS) PARTITION BY RANGE ("occurred_at");
ALTER SEQUENCE "scan_events_id_seq" OWNED BY "scan_events"."id";

-- A partitioned table's unique constraints include its partition key. Nothing refers to a raw row
-- by its id (a batch is deduplicated by scan_batches, in the writing statement), so the key becomes
-- (occurred_at, id): ids still come from the one sequence, and the time leads for the retention.
ALTER TABLE "scan_events"
  ADD CONSTRAINT "scan_events_pkey" PRIMARY KEY ("occurred_at", "id"),
  ADD CONSTRAINT "scan_events_scans_positive" CHECK ("scans" > 0),
  ADD CONSTRAINT "scan_events_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "scan_events_link_id_occurred_at_idx" ON "scan_events" ("link_id", "occurred_at");

-- Whatever time no day partition holds: never an error for the writer.
CREATE TABLE "scan_events_default" PARTITION OF "scan_events" DEFAULT;

-- The old key (id alone) is replaced by the partitioned key, which ATTACH builds on the table. The
-- old check was NOT VALID (every row then held its default 1); the partitioned table's is valid,
-- so the old one is validated here, in the same read as the attach's.
ALTER TABLE "scan_events_legacy" DROP CONSTRAINT "scan_events_legacy_pkey";
ALTER TABLE "scan_events_legacy" VALIDATE CONSTRAINT "scan_events_scans_positive";

DO $$
DECLARE
  tomorrow timestamptz := date_trunc('day', now(), 'UTC') + interval '1 day';
  name text := 'scan_events_before_' || to_char(tomorrow AT TIME ZONE 'UTC', 'YYYYMMDD');
BEGIN
  -- Rows dated tomorrow or later (a clock ahead, a test) go through the partitioned table.
  WITH moved AS (DELETE FROM "scan_events_legacy" WHERE "occurred_at" >= tomorrow RETURNING *)
  INSERT INTO "scan_events" SELECT * FROM moved;
  EXECUTE format('ALTER TABLE "scan_events" ATTACH PARTITION "scan_events_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', tomorrow);
  EXECUTE format('ALTER TABLE "scan_events_legacy" RENAME TO %I', name);
  EXECUTE format('ALTER INDEX "scan_events_legacy_pkey" RENAME TO %I', name || '_pkey');
  EXECUTE format('ALTER INDEX "scan_events_legacy_link_id_occurred_at_idx" RENAME TO %I', name || '_link_id_occurred_at_idx');
  -- The embedded database (@prisma/dev, PGlite) captures changes with a row trigger it adds to every
  -- table that lacks one, after each statement. A partition must get it from its partitioned table
  -- (PostgreSQL refuses to clone a trigger onto a partition that has its own of the same name), so
  -- here the old table's goes and the partitioned table's is added, reaching every partition now and
  -- later. On any other server that function does not exist and this does nothing.
  IF to_regprocedure('"_prisma_dev_wal"."capture_event"()') IS NOT NULL THEN
    EXECUTE format('DROP TRIGGER IF EXISTS "prisma_dev_wal_capture" ON %I', name);
    CREATE TRIGGER "prisma_dev_wal_capture" AFTER INSERT OR UPDATE OR DELETE ON "scan_events"
      FOR EACH ROW EXECUTE FUNCTION "_prisma_dev_wal"."capture_event"();
  END IF;
END $$;
