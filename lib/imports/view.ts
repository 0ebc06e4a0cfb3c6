import type { ImportEntryView, ImportFormat, ImportView } from "./schemas";
import type { ImportEntryRow, ImportRecord, RowError } from "./store";

export function toImportView(record: ImportRecord): ImportView {
  return {
    id: record.id,
    status: record.status as ImportView["status"],
    format: record.format as ImportFormat,
    dry_run: record.dryRun,
    total: record.total,
    processed: record.nextRow,
    created: record.created,
    kept: record.kept,
    merged: record.merged,
    skipped: record.skipped,
    failed: record.failed,
    errors: record.errors as RowError[],
    created_at: record.createdAt.getTime(),
    finished_at: record.finishedAt?.getTime() ?? null,
  };
}

export function toEntryView(entry: ImportEntryRow): ImportEntryView {
  return {
    entry: entry.entry,
    row: entry.row,
    code: entry.code,
    outcome: entry.outcome as ImportEntryView["outcome"],
    link_id: entry.linkId,
    merged_into_row: entry.mergedInto,
    error: entry.error,
  };
}
