import { type CreateEntitlement, spendAllowance } from "@/lib/billing/entitlement";
import { clock } from "@/lib/clock";
import type { DbClient } from "@/lib/db/client";
import { DomainError } from "@/lib/http/errors";
import { DEFAULT_TAG_COLOR } from "@/lib/tags/schemas";
import { ensureTags, replaceLinkTags } from "@/lib/tags/store";
import { type ChangedBy, linkChanged } from "./changes";
import { allocateSlug } from "./slugs";
import type { LinkRow } from "./store";
import * as store from "./store";

const SLUG_ATTEMPTS = 8;

/**
 * What happens when the custom slug asked for is taken: refuse with 409 (an account's create,
 * which the caller can retry), or give the link an allocated slug (a paid link, which must be
 * delivered because the payment has settled).
 */
export type SlugPolicy = "fail_when_taken" | "fall_back_to_allocated";

/** A link that passed every check, ready to be written. */
export type LinkDraft = {
  workspaceId: string;
  host: string | null;
  domainId: string | null;
  destination: string;
  /** Who makes it; a member's session is also its creator, whose own links a member may edit. */
  by: ChangedBy;
  /** The custom slug asked for; null for an allocated one. */
  slug: string | null;
  title: string | null;
  /** The password's salted hash, or null: visitors enter none. */
  passwordHash: string | null;
  /** After `after` scans, the link points at `destination`; null: no limit. */
  scanLimit: { after: number; destination: string } | null;
  /** The social preview's title and description (its image is uploaded afterwards); null or omitted: none. */
  preview?: { title: string | null; description: string | null } | null;
  /** Tag names; the ones the workspace lacks are created with the link. */
  tagNames: readonly string[];
  /** The short URL the link had at another service (an import). */
  importedFrom: string | null;
  /** An import's link: when its service created it, and whether it was archived there (it is archived here too, and keeps resolving). */
  original?: { createdAt: Date | null; archived: boolean };
  slugPolicy: SlugPolicy;
  /**
   * An import's printed code: written even when another code of its host differs from it only by
   * case (a case twin its source had, ADR 0010); any other custom slug meeting one is refused.
   */
  keepCaseTwin?: boolean;
  /**
   * Without a custom slug: return the workspace's live link that already points at this
   * destination on this host instead of a new one, and let the new one be returned so later.
   * False for a paid link (one payment, one new link).
   */
  reuse: boolean;
};

export type CommittedLink = {
  link: LinkRow;
  /** False when the workspace's existing link was returned (reuse). */
  created: boolean;
  /** The custom slug was taken, so the link got an allocated one (policy fall_back_to_allocated). */
  slugFellBack: boolean;
};

/**
 * The one way a link is written, for an account's create and a payment's alike. Inserts under
 * the slug policy (collisions of allocated slugs are retried with a fresh one; the unique
 * indexes, not a prior read, decide), spends a capped plan's allowance in the same transaction
 * when `via` carries the create's entitlement, or writes in the caller's transaction (`client`,
 * from transaction(): a payment's fulfilment). Either way linkChanged announces the new link once
 * the transaction has committed, so a cached "unknown slug" is dropped at once, and never for a rollback.
 */
export async function commitLink(
  draft: LinkDraft,
  via: { entitlement: CreateEntitlement } | { client: DbClient },
): Promise<CommittedLink> {
  if ("client" in via) return insertUnderPolicy(via.client, draft);
  return spendAllowance(via.entitlement, (client) => insertUnderPolicy(client, draft));
}

export function slugTaken(slug: string): DomainError {
  return new DomainError(
    "conflict",
    `The slug "${slug}" is already taken on this host; choose another or omit it to get one allocated.`,
  );
}

/** 409 for a custom slug differing only by case from a code its host already has (ADR 0010). */
export function caseTwinTaken(slug: string, existing: string): DomainError {
  return new DomainError(
    "conflict",
    `The slug "${slug}" differs only in case from "${existing}", which already exists on this host, and a code typed ` +
      `in the wrong case reaches "${existing}": choose another slug, or omit it to get one allocated.`,
  );
}

async function insertUnderPolicy(client: DbClient, draft: LinkDraft): Promise<CommittedLink> {
  const row = {
    workspaceId: draft.workspaceId,
    host: draft.host,
    domainId: draft.domainId,
    destination: draft.destination,
    createdByUserId: draft.by.kind === "session" ? draft.by.userId : null,
    title: draft.title,
    passwordHash: draft.passwordHash,
    scanLimitAfter: draft.scanLimit?.after ?? null,
    scanLimitDestination: draft.scanLimit?.destination ?? null,
    previewTitle: draft.preview?.title ?? null,
    previewDescription: draft.preview?.description ?? null,
    importedFrom: draft.importedFrom,
    originalCreatedAt: draft.original?.createdAt ?? null,
    archivedAt: draft.original?.archived ? new Date(clock().now()) : null,
  };
  if (draft.slug) {
    const link = await store.insertLink({ ...row, slug: draft.slug, reusable: false }, client);
    if (link) return { link: await created(client, link, draft), created: true, slugFellBack: false };
    // Refused by one of the two unique indexes: the code itself, or one differing only by case.
    const holder = await store.codeIgnoringCase(draft.host, draft.slug, client);
    if (holder !== null && holder !== draft.slug && draft.keepCaseTwin) {
      const twin = await store.insertLink({ ...row, slug: draft.slug, reusable: false, caseTwin: true }, client);
      if (twin) return { link: await created(client, twin, draft), created: true, slugFellBack: false };
    }
    if (draft.slugPolicy === "fail_when_taken") {
      throw holder !== null && holder !== draft.slug ? caseTwinTaken(draft.slug, holder) : slugTaken(draft.slug);
    }
  }
  const reusable = draft.reuse && !draft.slug;
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    // Looked up on every attempt: an insert refused by the reusable-twin index means one was just written.
    const existing = reusable ? await store.findReusableLink(draft.workspaceId, draft.host, draft.destination, client) : null;
    if (existing) return { link: existing, created: false, slugFellBack: false };
    const link = await store.insertLink({ ...row, slug: allocateSlug(), reusable }, client);
    if (link) return { link: await created(client, link, draft), created: true, slugFellBack: draft.slug !== null };
  }
  throw new Error(`No free slug found after ${SLUG_ATTEMPTS} attempts.`);
}

/** A new link's tags and its announcement, written in the link's own transaction. */
async function created(client: DbClient, link: LinkRow, draft: LinkDraft): Promise<LinkRow> {
  const tagged = await withTags(client, link, draft);
  await linkChanged(client, { kind: "created", link: tagged, before: null, by: draft.by });
  return tagged;
}

async function withTags(client: DbClient, link: LinkRow, draft: LinkDraft): Promise<LinkRow> {
  if (draft.tagNames.length === 0) return link;
  await replaceLinkTags(client, link.id, await ensureTags(client, draft.workspaceId, draft.tagNames, DEFAULT_TAG_COLOR));
  return store.readLink(link.id, client);
}
