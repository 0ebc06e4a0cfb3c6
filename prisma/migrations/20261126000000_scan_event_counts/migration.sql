-- A raw row may stand for several identical scans (the same visitor, link and millisecond, every
-- captured fact alike), which the scan buffer folds before writing: one row with its count instead
-- of one row per scan (a busy link's visitor made PostgreSQL insert tens of thousands of identical
-- rows a second). Existing rows are one scan each; a constant default adds the column without
-- rewriting the table.
ALTER TABLE "scan_events" ADD COLUMN "scans" INTEGER NOT NULL DEFAULT 1;
-- NOT VALID: every existing row holds the default 1, and validating would read the whole table while
-- this migration's transaction holds its lock, stopping scan writes, retention and link deletion for as
-- long; new and updated rows are checked all the same.
ALTER TABLE "scan_events" ADD CONSTRAINT "scan_events_scans_positive" CHECK ("scans" > 0) NOT VALID;
