import { type CreateEntitlement, spendAllowance } from "@/lib/billing/entitlement";
import { clock } from "@/lib/clock";
import { type DbClient, withSavepoint } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { DomainError } from "@/lib/http/errors";
import { DEFAULT_TAG_COLOR } from "@/lib/tags/schemas";
import { ensureTags, replaceLinkTags } from "@/lib/tags/store";
import { type ChangedBy, type LinkChange, linkChanged, linksChanged } from "./changes";
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

/**
 * Many drafts in the caller's transaction (`client`, from transaction(): an import's batch), each
 * decided as commitLink decides it, in a handful of statements whatever their number: the
 * workspace's links to the reusable drafts' destinations read at once, every other draft inserted
 * in one statement, and only the few a unique index refused there (a slug taken meanwhile, a case
 * twin, a reusable twin written since the read) inserted one by one under the slug policy. A
 * draft refused with a sentence (its slug is taken) has that refusal as its result and none of
 * its writes, and the others are written; anything else rolls the whole batch back. No allowance
 * is spent: the caller's plan has no cap (a capped plan's links are committed one by one, each
 * spending its unit).
 */
export async function commitLinks(drafts: readonly LinkDraft[], client: DbClient): Promise<(CommittedLink | DomainError)[]> {
  if (drafts.length === 0) return [];
  const results: (CommittedLink | DomainError | undefined)[] = new Array(drafts.length);
  const reusableDrafts = drafts.filter((draft) => draft.reuse && !draft.slug);
  const existing = await store.findReusableLinks(drafts[0]!.workspaceId, reusableDrafts, client);
  const rows: (store.NewLink & { id: string })[] = [];
  const draftOf = new Map<string, number>();
  drafts.forEach((draft, index) => {
    const reused = draft.reuse && !draft.slug ? existing.get(store.reusableKey(draft)) : undefined;
    if (reused) {
      results[index] = { link: reused, created: false, slugFellBack: false };
      return;
    }
    const id = newId("lnk");
    rows.push({ id, ...rowOf(draft), slug: draft.slug ?? allocateSlug(), reusable: draft.reuse && !draft.slug });
    draftOf.set(id, index);
  });
  const changes: LinkChange[] = [];
  for (const link of await store.insertLinks(rows, client)) {
    const index = draftOf.get(link.id)!;
    const tagged = await withTags(client, link, drafts[index]!);
    results[index] = { link: tagged, created: true, slugFellBack: false };
    changes.push({ kind: "created", link: tagged, before: null, by: drafts[index]!.by });
  }
  await linksChanged(client, changes);
  for (const [index, draft] of drafts.entries()) {
    if (results[index]) continue;
    try {
      // A refusal may come after this draft's link was inserted (its tags): the savepoint takes back its writes alone.
      results[index] = await withSavepoint(client, () => insertUnderPolicy(client, draft));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      results[index] = error;
    }
  }
  return results as (CommittedLink | DomainError)[];
}

/** The columns a draft writes, whatever its slug. */
function rowOf(draft: LinkDraft): Omit<store.NewLink, "slug" | "reusable"> {
  return {
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
}

async function insertUnderPolicy(client: DbClient, draft: LinkDraft): Promise<CommittedLink> {
  const row = rowOf(draft);
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
