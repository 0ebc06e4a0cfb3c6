-- Nothing reads raw scan rows by link any more: closing a day and the retention read them by time
-- (the primary key), and the foreign key whose cascade probed this index is gone. Each raw row
-- still cost an entry at a random place in it: a batch of 5,000 spread scans took 246-265 ms
-- without it against 271-311 ms with it (bench/batch-plan.ts --links 20000 --batches 12, three
-- times in turns).
DROP INDEX "scan_events_link_id_occurred_at_idx";
