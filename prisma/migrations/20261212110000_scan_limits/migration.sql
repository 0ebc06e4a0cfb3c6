-- "After N scans, send visitors to X": the limit, its destination, and the scans counted toward it
-- (one conditional UPDATE a visit counts and, at N, switches the link in the same statement).
ALTER TABLE "links" ADD COLUMN "scan_limit_after" INTEGER;
ALTER TABLE "links" ADD COLUMN "scan_limit_destination" TEXT;
ALTER TABLE "links" ADD COLUMN "scan_limit_count" INTEGER NOT NULL DEFAULT 0;
