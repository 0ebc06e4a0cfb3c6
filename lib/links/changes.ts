import { afterCommit, type DbClient } from "@/lib/db/client";
import { log } from "@/lib/log";
import { requestContext } from "@/lib/process-singleton";
import type { EventType } from "@/lib/webhooks/events";
import { announceEvents } from "@/lib/webhooks/outbox";
import type { Principal } from "@/lib/workspaces/types";
import { changedFields, recordedLink } from "./history";
import type { HistoryChange, HistoryDoor } from "./history-schemas";
import { publishInvalidation } from "./invalidation";
import { toLinkView } from "./present";
import { appendHistory, type LinkRow, type NewHistoryRow } from "./store";

/** Every kind of change to a link, and the webhook event that tells the workspace of it. */
const WEBHOOK_EVENTS = {
  /** Made (by an account, a payment or an import). */
  created: "link.created",
  /** Its destination, rules, schedule, title or tags changed by someone. */
  edited: "link.updated",
  /** A scheduled repoint came due and was written into the link. */
  repoint_applied: "link.updated",
  /** Its scan limit was reached: the visit that made the last counted scan switched it to the limit's destination. */
  scan_limit_reached: "link.updated",
  archived: "link.archived",
  restored: "link.restored",
  /** Moved between active, quarantine and abuse (a release, a safety verdict, an operator). */
  status_changed: "link.status_changed",
} as const satisfies Record<string, EventType>;

export type LinkChangeKind = keyof typeof WEBHOOK_EVENTS;

/** Who made a change: a member or the workspace's API key, a machine payment, the operator, or the service itself. */
export type ChangedBy = Principal | { kind: "machine_payment"; payerDid: string } | { kind: "operator" } | { kind: "service" };

export type LinkChange = {
  kind: LinkChangeKind;
  /** The link as it is after the change, read in the change's transaction. */
  link: LinkRow;
  /** The link as it was before, read in the same transaction (under its lock); null when it was created. */
  before: LinkRow | null;
  by: ChangedBy;
};

/**
 * The one call for every change to a link, made inside the change's own transaction (`tx`, from
 * transaction() in lib/db/client.ts): the link's history row and the webhook message are written with
 * the change or not at all, and once the transaction has committed every instance drops its cached copy (across
 * instances through Redis), so the change is seen on the next visit everywhere. A path that
 * changes a link and skips this sends no webhook and serves a stale copy for up to a minute.
 */
export async function linkChanged(tx: DbClient, change: LinkChange): Promise<void> {
  await linksChanged(tx, [change]);
}

/**
 * linkChanged for one change to many links at once (a tag renamed or deleted changes every link carrying it):
 * every link's history row in one statement, every webhook message in one, and each link announced once the
 * transaction has committed, so the cost in statements does not grow with the links.
 */
export async function linksChanged(tx: DbClient, changes: readonly LinkChange[]): Promise<void> {
  if (changes.length === 0) return;
  await appendHistory(tx, changes.map(historyRowOf));
  await announceEvents(
    tx,
    changes.map(({ link, kind }) => ({ workspaceId: link.workspaceId, type: WEBHOOK_EVENTS[kind], data: toLinkView(link) })),
  );
  afterCommit(tx, () => {
    for (const { link, kind } of changes) {
      log().debug({ linkId: link.id, change: kind, status: link.status }, "link changed");
      publishInvalidation({ kind: "link", host: link.host, slug: link.slug });
    }
  });
}

/**
 * The door a change came through. The actor says most of it; an account's change is told apart by the route
 * being served (the API's request context: MCP, bulk), and a change with no API request around it by an
 * account is the dashboard's (its server actions call the services directly).
 */
export function doorOf(change: Pick<LinkChange, "kind" | "link" | "by">, route: string | undefined): HistoryDoor {
  const { by } = change;
  if (by.kind === "machine_payment" || by.kind === "operator" || by.kind === "service") return by.kind;
  if (change.kind === "created" && change.link.importedFrom) return "import";
  if (route === "/api/mcp") return "mcp";
  if (route === "/api/links/bulk") return "bulk";
  if (route === undefined) return "dashboard";
  if (by.kind === "api_key") return "api_key";
  return by.grant ? "oauth" : "session_token";
}

function actorOf(by: ChangedBy): Pick<NewHistoryRow, "actorKind" | "actorId"> {
  // An app's change names its connection: the grant says which app and for whom (its person).
  if (by.kind === "session" && by.grant) return { actorKind: "oauth_grant", actorId: by.grant.id };
  if (by.kind === "session") return { actorKind: "session", actorId: by.userId };
  if (by.kind === "api_key") return { actorKind: "api_key", actorId: by.apiKeyId };
  if (by.kind === "machine_payment") return { actorKind: "machine_payment", actorId: by.payerDid };
  return { actorKind: by.kind, actorId: null };
}

/** The history row a change writes (linkChanged calls this in the change's transaction). */
export function historyRowOf(change: LinkChange): NewHistoryRow {
  return {
    linkId: change.link.id,
    workspaceId: change.link.workspaceId,
    // Every kind of change has its word in the history's vocabulary: a new kind fails to compile here until it does.
    change: change.kind satisfies HistoryChange,
    via: doorOf(change, requestContext().getStore()?.route),
    ...actorOf(change.by),
    changed: changedFields(change.before, change.link),
    before: change.before ? recordedLink(change.before) : null,
    after: recordedLink(change.link),
  };
}
