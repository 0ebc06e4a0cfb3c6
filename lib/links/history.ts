import { isRecordId } from "@/lib/db/random";
import { notFound } from "@/lib/http/errors";
import { can, requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import type { HistoryDoor, HistoryEntryView, RecordedLink } from "./history-schemas";
import { tagNamesOf } from "./present";
import { previewOf } from "./preview";
import { storedRules, storedSchedule } from "./routing";
import type { HistoryRow, LinkRow } from "./store";
import * as store from "./store";

const DEFAULT_PAGE = 50;
const RECORDED_FIELDS = [
  "destination",
  "status",
  "title",
  "tags",
  "rules",
  "schedule",
  "archived_at",
  "scan_limit",
  "password_protected",
  "preview",
] as const satisfies readonly (keyof RecordedLink)[];

/**
 * The fields a change touched: those whose recorded value differs (every one for a creation), and `password` when the
 * password was set, replaced or removed (decided from its hash, which the row never keeps).
 */
export function changedFields(before: LinkRow | null, after: LinkRow): string[] {
  if (!before) return [...RECORDED_FIELDS, ...(after.passwordHash !== null ? ["password"] : [])];
  const [was, is] = [recordedLink(before), recordedLink(after)];
  const fields: string[] = RECORDED_FIELDS.filter((field) => JSON.stringify(was[field]) !== JSON.stringify(is[field]));
  return before.passwordHash === after.passwordHash ? fields : [...fields, "password"];
}

/** What a history row keeps of a link: every field a change can touch, as stored (never a secret). */
export function recordedLink(link: LinkRow): RecordedLink {
  return {
    destination: link.destination,
    status: link.status,
    title: link.title,
    tags: tagNamesOf(link),
    rules: storedRules(link.rules),
    schedule: storedSchedule(link.schedule),
    archived_at: link.archivedAt?.getTime() ?? null,
    scan_limit:
      link.scanLimitAfter !== null && link.scanLimitDestination !== null
        ? { after: link.scanLimitAfter, destination: link.scanLimitDestination }
        : null,
    // Whether it has one, never the password or its hash (a replaced password shows in the row's `changed`).
    password_protected: link.passwordHash !== null,
    preview: previewOf(link),
  };
}

/**
 * One entry as a caller sees it. A member's address is shown only to a caller who may read the
 * members (an app holding links:read and not members:read sees who by id, not by address).
 */
function entryView(row: HistoryRow, showEmails: boolean): HistoryEntryView {
  const before = row.before as RecordedLink | null;
  const after = row.after as RecordedLink;
  const kind =
    { session: "member", oauth_grant: "app", api_key: "api_key", machine_payment: "machine_account" }[row.actorKind] ??
    row.actorKind;
  return {
    at: row.occurredAt.getTime(),
    change: row.change as HistoryEntryView["change"],
    via: row.via as HistoryDoor,
    by: {
      kind: kind as HistoryEntryView["by"]["kind"],
      user_id: row.actorUserId,
      email: showEmails ? row.actorEmail : null,
      app: row.actorApp && { client_id: row.actorApp.clientId, name: row.actorApp.name, grant_id: row.actorApp.grantId },
      api_key_id: row.actorKind === "api_key" ? row.actorId : null,
      payer: row.actorKind === "machine_payment" ? row.actorId : null,
    },
    changed: row.changed as HistoryEntryView["changed"],
    before,
    after,
  };
}

/** History rows read at once by the export: a link with more is read in pieces of this many. */
const HISTORY_CHUNK = 2000;

/**
 * The history of a page of links, in the page's order and newest first within a link, as pieces of
 * at most a few thousand entries: links with few rows are read together, one with many in several
 * pieces, so memory stays bounded whatever a link's history holds. Every link of the page gets at
 * least one piece (empty when it has no history). The caller has checked the principal may read links.
 */
export async function* historyOfLinkPage(
  principal: Principal,
  links: readonly LinkRow[],
): AsyncGenerator<{ linkId: string; entries: HistoryEntryView[] }> {
  const showEmails = can(principal, "members.read");
  const view = (row: HistoryRow) => entryView(row, showEmails);
  const counts = await store.historyCounts(links.map((link) => link.id));
  let group: string[] = [];
  let groupRows = 0;
  async function* flush() {
    if (group.length === 0) return;
    const rows = await store.historyOfLinks(group);
    const byLink = new Map<string, HistoryRow[]>();
    for (const row of rows) {
      const entries = byLink.get(row.linkId);
      if (entries) entries.push(row);
      else byLink.set(row.linkId, [row]);
    }
    for (const linkId of group) yield { linkId, entries: (byLink.get(linkId) ?? []).map(view) };
    [group, groupRows] = [[], 0];
  }
  for (const link of links) {
    const count = counts.get(link.id) ?? 0;
    if (count > HISTORY_CHUNK) {
      yield* flush();
      let before: bigint | undefined;
      for (;;) {
        const rows = await store.historyOfLinks([link.id], HISTORY_CHUNK, before);
        yield { linkId: link.id, entries: rows.map(view) };
        if (rows.length < HISTORY_CHUNK) break;
        before = rows.at(-1)!.id;
      }
      continue;
    }
    if (groupRows + count > HISTORY_CHUNK) yield* flush();
    group.push(link.id);
    groupRows += count;
  }
  yield* flush();
}

/** A page of a link's history, newest first: any member who may read links may read it, archived links included. */
export async function linkHistoryPage(
  principal: Principal,
  id: string,
  query: { limit?: number; cursor?: string },
): Promise<{ entries: HistoryEntryView[]; next_cursor: string | null }> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading links.");
  const link = isRecordId(id) ? await store.findWorkspaceLink(principal.workspaceId, id) : null;
  if (!link) throw notFound("No link with this id exists in this workspace.");
  const limit = query.limit ?? DEFAULT_PAGE;
  const after = query.cursor === undefined ? undefined : store.historyCursor.read(query.cursor);
  const rows = await store.pageOfHistory(link.id, limit, after);
  return {
    entries: rows.map((row) => entryView(row, can(principal, "members.read"))),
    next_cursor: store.historyCursor.next(
      rows.map((row) => ({ id: Number(row.id) })),
      limit,
    ),
  };
}
