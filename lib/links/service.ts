import { requireCreateEntitlement, requireEditEntitlement, spendAllowance } from "@/lib/billing/entitlement";
import { db, type DbClient } from "@/lib/db/client";
import { DomainError, notFound } from "@/lib/http/errors";
import { can, requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { vetDestination } from "./destination-gate";
import { toListItem } from "./present";
import { MAX_LIST_SIZE, type CreateLinkInput } from "./schemas";
import { publishInvalidation } from "./invalidation";
import { allocateSlug } from "./slugs";
import { ABUSE } from "./status";
import * as store from "./store";
import type { LinkRow } from "./store";

const SLUG_ATTEMPTS = 8;

/** A create request that passed every check; committing it can only fail on a taken slug. */
export type PreparedLink = { destination: string; slug: string | null; host: string | null; domainId: string | null };

export type CreatedLink = { link: LinkRow; created: boolean };

/** Validation, destination refusal and the safety check: everything that can refuse a create. */
export async function prepareLink(workspaceId: string | null, input: CreateLinkInput): Promise<PreparedLink> {
  const destination = await vetDestination(input.destination);
  const domain = input.domain_id ? await requireVerifiedDomain(workspaceId, input.domain_id) : null;
  return { destination, slug: input.slug ?? null, host: domain?.hostname ?? null, domainId: domain?.id ?? null };
}

/** 409 when the custom slug is already taken on its host: for callers that must refuse before committing (a payment). */
export async function ensureSlugAvailable(prepared: PreparedLink): Promise<void> {
  if (prepared.slug && (await store.isSlugTaken(prepared.host, prepared.slug))) throw slugTaken(prepared.slug);
}

/**
 * Creates the link. Without a custom slug, a live link of the workspace that already points at
 * this destination on this host is returned instead (created: false). Slug collisions are
 * retried with a fresh slug; the unique indexes, not a prior read, decide. `client` is a
 * transaction's when the create also spends a plan's allowance.
 */
export async function commitLink(prepared: PreparedLink, workspaceId: string, createdByUserId: string | null, client: DbClient = db()): Promise<CreatedLink> {
  const base = { workspaceId, host: prepared.host, domainId: prepared.domainId, destination: prepared.destination, createdByUserId };
  if (prepared.slug) {
    const link = await store.insertLink({ ...base, slug: prepared.slug, reusable: false }, client);
    if (!link) throw slugTaken(prepared.slug);
    return { link, created: true };
  }
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    const existing = await store.findReusableLink(workspaceId, prepared.host, prepared.destination, client);
    if (existing) return { link: existing, created: false };
    const link = await store.insertLink({ ...base, slug: allocateSlug(), reusable: true }, client);
    if (link) return { link, created: true };
  }
  throw new Error(`No free slug found after ${SLUG_ATTEMPTS} attempts.`);
}

/**
 * A create with a bearer credential. The subscription is checked after the body's validation
 * and before the destination's safety check (402 comes before 422); a capped plan's allowance
 * is spent only when the commit creates a link.
 */
export async function createLink(principal: Principal, input: CreateLinkInput): Promise<CreatedLink> {
  requirePermission(principal, "links.create", "Your role in this workspace does not allow creating links.");
  const entitlement = await requireCreateEntitlement(principal.workspaceId);
  const prepared = await prepareLink(principal.workspaceId, input);
  const createdBy = principal.kind === "session" ? principal.userId : null;
  const result = await spendAllowance(entitlement, (client) => commitLink(prepared, principal.workspaceId, createdBy, client));
  if (result.created) announceNewLink(result.link);
  return result;
}

/** After the commit: an instance that cached this host and slug as unknown must look again. */
export function announceNewLink(link: Pick<LinkRow, "host" | "slug">): void {
  publishInvalidation({ kind: "link", host: link.host, slug: link.slug });
}

export async function listLinks(principal: Principal, limit = MAX_LIST_SIZE, cursor?: string) {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow listing links.");
  const after = cursor ? decodeCursor(cursor) : undefined;
  const rows = await store.listLiveLinks(principal.workspaceId, limit, after);
  const last = rows.length === limit ? rows.at(-1) : undefined;
  return { links: rows.map(toListItem), next_cursor: last ? encodeCursor(last) : null };
}

export async function getLink(principal: Principal, id: string): Promise<LinkRow> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading links.");
  return findOwnLink(principal, id);
}

export async function repoint(principal: Principal, id: string, rawDestination: string): Promise<LinkRow> {
  const link = await findEditableLink(principal, id);
  await requireEditEntitlement(principal.workspaceId);
  if (link.status === ABUSE) {
    throw new DomainError("conflict", "This link was blocked for abuse and cannot be repointed; contact support to appeal.");
  }
  const destination = await vetDestination(rawDestination);
  if (destination === link.destination) return link;
  const repointed = await store.repointLink(link.id, destination);
  publishInvalidation({ kind: "link", host: repointed.host, slug: repointed.slug });
  return repointed;
}

/** Archiving needs no subscription: it changes no destination and the code keeps resolving. */
export async function archive(principal: Principal, id: string): Promise<LinkRow> {
  const link = await findEditableLink(principal, id);
  return store.archiveLink(link.id);
}

async function findOwnLink(principal: Principal, id: string): Promise<LinkRow> {
  const link = await store.findWorkspaceLink(principal.workspaceId, id);
  if (!link) throw notFound("No link with this id exists in this workspace.");
  return link;
}

async function findEditableLink(principal: Principal, id: string): Promise<LinkRow> {
  const link = await findOwnLink(principal, id);
  const ownsLink = principal.kind === "session" && link.createdByUserId === principal.userId;
  if (!can(principal, "links.edit_any") && !(ownsLink && can(principal, "links.edit_own"))) {
    throw new DomainError("forbidden", "Your role in this workspace allows editing only the links you created.");
  }
  return link;
}

async function requireVerifiedDomain(workspaceId: string | null, domainId: string) {
  const domain = workspaceId ? await store.findVerifiedDomain(workspaceId, domainId) : null;
  if (!domain) throw new DomainError("invalid_request", "The domain_id does not name a verified custom domain of this workspace.");
  return domain;
}

function slugTaken(slug: string): DomainError {
  return new DomainError("conflict", `The slug "${slug}" is already taken on this host; choose another or omit it to get one allocated.`);
}

function encodeCursor(link: LinkRow): string {
  return Buffer.from(`${link.createdAt.getTime()}:${link.id}`).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [time, id] = Buffer.from(cursor, "base64url").toString().split(":");
  const createdAt = new Date(Number(time));
  if (!id || Number.isNaN(createdAt.getTime())) throw new DomainError("invalid_request", "The query string field \"cursor\" is not a cursor this service issued.");
  return { createdAt, id };
}
