import { type CreateEntitlement, requireCreateEntitlement, requireEditEntitlement } from "@/lib/billing/entitlement";
import { clock } from "@/lib/clock";
import { isWriteConflict, transaction } from "@/lib/db/client";
import { isRecordId } from "@/lib/db/random";
import { validate } from "@/lib/http/body";
import { type Download, etagOf } from "@/lib/http/download";
import { DomainError, notFound } from "@/lib/http/errors";
import { DEFAULT_TAG_COLOR } from "@/lib/tags/schemas";
import { ensureTags, nameKey, replaceLinkTags } from "@/lib/tags/store";
import { can, requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { isDeepStrictEqual } from "node:util";
import { linkChanged } from "./changes";
import { caseTwinTaken, commitLink, commitLinks, type CommittedLink, slugTaken } from "./commit";
import { vetDestination } from "./destination-gate";
import { hashPassword } from "./password";
import { toListItem } from "./present";
import { isOwnPreviewImageUrl, previewImagePath } from "./preview";
import {
  currentDestination,
  pendingRepoints,
  type RoutingRule,
  type ScheduledRepoint,
  storedRules,
  storedSchedule,
} from "./routing";
import { foldDueRepoints } from "./scheduled";
import { createLinkBody, type CreateLinkInput, MAX_LIST_SIZE, type UpdateLinkInput } from "./schemas";
import { ABUSE } from "./status";
import * as store from "./store";
import { linkCursor, type LinkPosition, type LinkRow } from "./store";

/** A create request that passed every check; committing it can only fail on a taken slug. */
export type PreparedLink = {
  destination: string;
  slug: string | null;
  host: string | null;
  domainId: string | null;
  title: string | null;
  tagNames: readonly string[];
  /** The password's salted hash (lib/links/password.ts), or null. */
  passwordHash: string | null;
  /** After `after` scans, the link points at `destination` (vetted as any destination); null: no limit. */
  scanLimit: { after: number; destination: string } | null;
  /** The social preview's title and description, or null: none. */
  preview: { title: string | null; description: string | null } | null;
};

/**
 * Validation, destination refusal and the safety check: everything that can refuse a create.
 * `verifiedDomain` is a domain of the workspace the caller has just read verified (an import reads
 * them once a job), so it is not read again for each link.
 */
export async function prepareLink(
  workspaceId: string | null,
  input: CreateLinkInput,
  options: { lookups?: boolean; verifiedDomain?: { id: string; hostname: string } } = {},
): Promise<PreparedLink> {
  const destination = await vetDestination(input.destination, { lookups: options.lookups });
  const known = options.verifiedDomain?.id === input.domain_id ? options.verifiedDomain : undefined;
  const domain = input.domain_id ? (known ?? (await requireVerifiedDomain(workspaceId, input.domain_id))) : null;
  return {
    destination,
    slug: input.slug ?? null,
    host: domain?.hostname ?? null,
    domainId: domain?.id ?? null,
    title: input.title || null,
    tagNames: input.tags ?? [],
    passwordHash: input.password ? await hashPassword(input.password) : null,
    scanLimit: input.scan_limit
      ? { after: input.scan_limit.after, destination: await vetNamed("scan_limit", input.scan_limit.destination, options) }
      : null,
    preview: createdPreview(input.preview),
  };
}

/** A new link's preview: its image can only be uploaded once the link exists. */
function createdPreview(preview: CreateLinkInput["preview"]): PreparedLink["preview"] {
  if (!preview) return null;
  if (preview.image_url)
    throw new DomainError(
      "invalid_request",
      "preview.image_url: a new link has no image yet; create the link, then upload its image with PUT /api/links/{id}/preview/image.",
    );
  const title = preview.title || null;
  const description = preview.description || null;
  return title === null && description === null ? null : { title, description };
}

/** 409 when the custom slug, or one differing from it only by case, is already taken on its host: for callers that must refuse before committing (a payment). */
export async function ensureSlugAvailable(prepared: PreparedLink): Promise<void> {
  if (!prepared.slug) return;
  const holder = await store.codeIgnoringCase(prepared.host, prepared.slug);
  if (holder === prepared.slug) throw slugTaken(prepared.slug);
  if (holder !== null) throw caseTwinTaken(prepared.slug, holder);
}

/**
 * A create with a bearer credential. The subscription is checked after the body's validation
 * and before the destination's safety check (402 comes before 422); a capped plan's allowance
 * is spent only when the commit creates a link. Without a custom slug, the workspace's live link
 * to this destination on this host is returned instead (created: false).
 */
export async function createLink(
  principal: Principal,
  input: CreateLinkInput,
  origin: { importedFrom: string | null } = { importedFrom: null },
): Promise<CommittedLink> {
  requirePermission(principal, "links.create", "Your role in this workspace does not allow creating links.");
  const entitlement = await requireCreateEntitlement(principal.workspaceId);
  const prepared = await prepareLink(principal.workspaceId, input);
  return commitLink(accountDraft(principal, prepared, origin.importedFrom), { entitlement });
}

/** What an import knows of a link beyond the create: its original short URL, when its service created it, whether it was archived there. */
export type ImportedOrigin = { importedFrom: string | null; createdAt: Date | null; archived: boolean };

/** An import's row ready to be written: the create it passed (prepareLink) and where it comes from. */
export type ImportedLink = { prepared: PreparedLink; origin: ImportedOrigin };

/** Long enough for a batch of an import's links on a loaded machine; a batch holds no row another create waits on for long. */
const IMPORT_BATCH_TRANSACTION = { maxWait: 10_000, timeout: 30_000 };
const IMPORT_BATCH_ATTEMPTS = 3;

/**
 * An import's rows, prepared by the import (prepareLink), committed as an account's creates. A row
 * that printed a code is a link of its own, never folded into another link to the same
 * destination: the report can then name the link carrying each printed code. The entitlement is
 * the import's, read once a batch (requireCreateEntitlement). Without a cap the rows are written in
 * one transaction (commitLinks); a capped plan's are committed one by one, each spending its unit
 * of the allowance in its own transaction, so the rows before the allowance ran out are kept. Each
 * row's result is its link, or the sentence that refused it.
 */
export async function createImportedLinks(
  principal: Principal,
  links: readonly ImportedLink[],
  entitlement: CreateEntitlement,
): Promise<(CommittedLink | DomainError)[]> {
  requirePermission(principal, "links.create", "Your role in this workspace does not allow creating links.");
  const drafts = links.map(({ prepared, origin }) => ({
    ...accountDraft(principal, prepared, origin.importedFrom),
    reuse: origin.importedFrom === null && reusable(prepared),
    keepCaseTwin: true,
    original: { createdAt: origin.createdAt, archived: origin.archived },
  }));
  if (!entitlement.limit) return commitBatch(drafts);
  const results: (CommittedLink | DomainError)[] = [];
  for (const draft of drafts) results.push(await commitLink(draft, { entitlement }).catch(refusalOnly));
  return results;
}

/**
 * Two batches of one workspace at once (two imports) may meet on new rows in opposite orders (the
 * same destinations, new tag names): PostgreSQL aborts one of them, which is run again, since
 * nothing of a rolled-back batch was written or announced.
 */
async function commitBatch(drafts: Parameters<typeof commitLinks>[0]): Promise<(CommittedLink | DomainError)[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction((tx) => commitLinks(drafts, tx), IMPORT_BATCH_TRANSACTION);
    } catch (error) {
      if (attempt >= IMPORT_BATCH_ATTEMPTS || !isWriteConflict(error)) throw error;
    }
  }
}

/** A refusal (a sentence for the caller) as a value; anything else is thrown on. */
function refusalOnly(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  throw error;
}

function accountDraft(principal: Principal, prepared: PreparedLink, importedFrom: string | null) {
  return {
    ...prepared,
    workspaceId: principal.workspaceId,
    by: principal,
    importedFrom,
    slugPolicy: "fail_when_taken",
    reuse: reusable(prepared),
  } as const;
}

/**
 * A protected link, one with a scan limit or with a preview of its own is never folded into, nor
 * handed out as, the workspace's link to its destination.
 */
function reusable(prepared: PreparedLink): boolean {
  return prepared.passwordHash === null && prepared.scanLimit === null && prepared.preview === null;
}

export async function listLinks(principal: Principal, query: { limit?: number; cursor?: string; tag?: readonly string[] } = {}) {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow listing links.");
  const limit = query.limit ?? MAX_LIST_SIZE;
  const after = query.cursor ? linkCursor.read(query.cursor) : undefined;
  const rows = await store.pageOfLinks(
    principal.workspaceId,
    { archived: false, tagKeys: (query.tag ?? []).map(nameKey) },
    limit,
    after,
  );
  return { links: rows.map(toListItem), next_cursor: linkCursor.next(rows, limit) };
}

const EXPORT_PAGE_SIZE = 500;

/** Every link of the workspace, archived included, page by page: an export holds one page in memory at a time. */
export async function* allLinkPages(principal: Principal): AsyncGenerator<LinkRow[]> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow exporting links.");
  let after: LinkPosition | undefined;
  for (;;) {
    const page = await store.pageOfLinks(principal.workspaceId, {}, EXPORT_PAGE_SIZE, after);
    if (page.length > 0) yield page;
    if (page.length < EXPORT_PAGE_SIZE) return;
    const last = page.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

export async function getLink(principal: Principal, id: string): Promise<LinkRow> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading links.");
  return findOwnLink(principal, id);
}

/**
 * Repoints, retitles, retags, sets rules and schedules in one transaction: whatever the body names
 * changes, nothing else. Whatever serves a new destination (a repoint, rules, a schedule) needs a
 * subscription (402) and passes the destination rules (422) for each destination; a title or tags
 * change no destination, like an archive. A scheduled repoint whose time has come is folded into
 * the link first, so an edit never brings back a destination the schedule had already replaced.
 */
export async function editLink(principal: Principal, id: string, changes: UpdateLinkInput): Promise<LinkRow> {
  const link = await findEditableLink(principal, id);
  const now = clock().now();
  const changesDestinations =
    changes.destination !== undefined ||
    changes.rules !== undefined ||
    changes.schedule !== undefined ||
    changes.scan_limit !== undefined;
  if (changesDestinations) await requireRepointable(principal, link);
  const destination = changes.destination === undefined ? undefined : await vetDestination(changes.destination);
  const rules = changes.rules === undefined ? undefined : await vetRules(changes.rules);
  const schedule = changes.schedule === undefined ? undefined : await vetSchedule(changes.schedule, now);
  const scanLimit =
    changes.scan_limit == null
      ? changes.scan_limit
      : { after: changes.scan_limit.after, destination: await vetNamed("scan_limit", changes.scan_limit.destination) };
  const relimited = scanLimit !== undefined && (scanLimit !== null || link.scanLimitAfter !== null);
  const current = currentDestination(link.destination, storedSchedule(link.schedule), now);
  const repointed = destination !== undefined && destination !== current;
  const rerouted = rules !== undefined && !isDeepStrictEqual(rules, storedRules(link.rules));
  const rescheduled = schedule !== undefined && !isDeepStrictEqual(schedule, pendingRepoints(storedSchedule(link.schedule), now));
  const retitledOrRetagged = changes.title !== undefined || changes.tags !== undefined;
  // Hashed before the transaction: scrypt takes tens of milliseconds, no row lock should wait for it.
  const passwordHash = changes.password ? await hashPassword(changes.password) : changes.password;
  const reprotected = passwordHash !== undefined && (passwordHash !== null || link.passwordHash !== null);
  const preview = previewChange(link, changes.preview);
  return transaction(async (tx) => {
    const before = await store.readLinkForUpdate(tx, link.id);
    if (changesDestinations) await foldDueRepoints(tx, before, now);
    if (repointed) await store.repointLink(tx, link.id, destination);
    if (rerouted) await store.setRules(tx, link.id, rules);
    if (rescheduled) await store.setSchedule(tx, link.id, schedule);
    if (changes.title !== undefined) await store.setTitle(tx, link.id, changes.title || null);
    if (reprotected) await store.setPasswordHash(tx, link.id, passwordHash);
    if (relimited) await store.setScanLimit(tx, link.id, scanLimit);
    if (preview) await store.setPreview(tx, link.id, preview);
    if (changes.tags !== undefined) {
      await replaceLinkTags(tx, link.id, await ensureTags(tx, principal.workspaceId, changes.tags, DEFAULT_TAG_COLOR));
    }
    const after = await store.readLink(link.id, tx);
    if (repointed || rerouted || rescheduled || retitledOrRetagged || reprotected || relimited || preview) {
      await linkChanged(tx, { kind: "edited", link: after, before, by: principal });
    }
    return after;
  });
}

/**
 * What a PATCH's preview changes, or null when nothing: `preview: null` removes every part, the
 * image's bytes included; each part omitted keeps it. The only image a link may name is its own
 * upload, so an image_url is null (remove) or that image's address (keep).
 */
function previewChange(link: LinkRow, preview: UpdateLinkInput["preview"]): Parameters<typeof store.setPreview>[2] | null {
  if (preview === undefined) return null;
  const change =
    preview === null
      ? { title: null, description: null, image: null as null | undefined }
      : {
          title: preview.title === undefined ? undefined : preview.title || null,
          description: preview.description === undefined ? undefined : preview.description || null,
          image: preview.image_url === null ? null : undefined,
        };
  if (preview?.image_url && !(link.previewImage !== null && isOwnPreviewImageUrl(link.id, preview.image_url)))
    throw new DomainError(
      "invalid_request",
      `preview.image_url: a link's preview image is one uploaded for it (PUT ${previewImagePath(link.id)}); ` +
        "send its address to keep it, null to remove it, or leave image_url out.",
    );
  const changes =
    (change.title !== undefined && change.title !== link.previewTitle) ||
    (change.description !== undefined && change.description !== link.previewDescription) ||
    (change.image === null && link.previewImage !== null);
  return changes ? change : null;
}

/**
 * Sets the link's preview image (an upload already decoded and re-encoded by the logo pipeline,
 * lib/logos): an edit of the link, so it needs the edit permission and a subscription.
 */
export async function setPreviewImage(principal: Principal, id: string, image: store.PreviewImage): Promise<LinkRow> {
  const link = await findEditableLink(principal, id);
  await requireEditEntitlement(principal.workspaceId);
  if (link.status === ABUSE)
    throw new DomainError(
      "conflict",
      "This link was blocked for abuse and its preview cannot be changed; contact support to appeal.",
    );
  return transaction(async (tx) => {
    const before = await store.readLinkForUpdate(tx, link.id);
    await store.savePreviewImage(tx, link.id, image);
    const after = await store.readLink(link.id, tx);
    if (before.previewImage !== after.previewImage) await linkChanged(tx, { kind: "edited", link: after, before, by: principal });
    return after;
  });
}

/** A new destination in any form needs a subscription, and a link in abuse keeps the one it has. */
async function requireRepointable(principal: Principal, link: LinkRow): Promise<void> {
  await requireEditEntitlement(principal.workspaceId);
  if (link.status === ABUSE) {
    throw new DomainError("conflict", "This link was blocked for abuse and cannot be repointed; contact support to appeal.");
  }
}

/** Each rule's destination through the same gate as a link's own, normalised; a refusal names the rule. */
async function vetRules(rules: readonly RoutingRule[]): Promise<RoutingRule[]> {
  return Promise.all(
    rules.map(async (rule, index) => ({ when: rule.when, destination: await vetNamed(`rules[${index}]`, rule.destination) })),
  );
}

/** Each repoint in the future and through the destination gate; kept in time order. */
async function vetSchedule(schedule: readonly ScheduledRepoint[], now: number): Promise<ScheduledRepoint[]> {
  const past = schedule.findIndex((entry) => entry.at <= now);
  if (past !== -1) {
    throw new DomainError("invalid_request", `schedule[${past}].at must be in the future (epoch milliseconds after ${now}).`);
  }
  const vetted = await Promise.all(
    schedule.map(async (entry, index) => ({
      at: entry.at,
      destination: await vetNamed(`schedule[${index}]`, entry.destination),
    })),
  );
  return vetted.sort((a, b) => a.at - b.at);
}

async function vetNamed(field: string, destination: string, options: { lookups?: boolean } = {}): Promise<string> {
  try {
    return await vetDestination(destination, options);
  } catch (error) {
    if (error instanceof DomainError) throw new DomainError(error.code, `${field}.destination: ${error.message}`);
    throw error;
  }
}

/** Archiving needs no subscription: it changes no destination and the code keeps resolving. */
export async function archive(principal: Principal, id: string): Promise<LinkRow> {
  const link = await findEditableLink(principal, id);
  return store.archiveLink(link.id, (tx, archived, before) =>
    linkChanged(tx, { kind: "archived", link: archived, before, by: principal }),
  );
}

/** Undoes an archive; like archiving, it needs no subscription and changes no destination. */
export async function restore(principal: Principal, id: string): Promise<LinkRow> {
  const link = await findEditableLink(principal, id);
  return store.restoreLink(link.id, (tx, restored, before) =>
    linkChanged(tx, { kind: "restored", link: restored, before, by: principal }),
  );
}

async function findOwnLink(principal: Principal, id: string): Promise<LinkRow> {
  // Ids also arrive from query strings and tool arguments, which the route wrapper's path check never sees.
  const link = isRecordId(id) ? await store.findWorkspaceLink(principal.workspaceId, id) : null;
  if (!link) throw notFound("No link with this id exists in this workspace.");
  return link;
}

export async function findEditableLink(principal: Principal, id: string): Promise<LinkRow> {
  const link = await findOwnLink(principal, id);
  const ownsLink = principal.kind === "session" && link.createdByUserId === principal.userId;
  if (!can(principal, "links.edit_any") && !(ownsLink && can(principal, "links.edit_own"))) {
    throw new DomainError("forbidden", "Your role in this workspace allows editing only the links you created.");
  }
  return link;
}

/** Another workspace's domain is as unknown as a made-up id (404); an unverified one of ours cannot carry links yet (409). */
async function requireVerifiedDomain(workspaceId: string | null, domainId: string) {
  const domain = workspaceId ? await store.findWorkspaceDomain(workspaceId, domainId) : null;
  if (!domain) throw notFound("The domain_id names no custom domain of this workspace.");
  if (!domain.verifiedAt)
    throw new DomainError(
      "conflict",
      `${domain.hostname} is not verified yet, so no links can be created on it: create its DNS ` +
        `records and verify it (POST /api/domains/${domain.id}/verify).`,
    );
  return domain;
}

export type BulkOutcome = { index: number } & ({ committed: CommittedLink } | { refusal: DomainError });

/**
 * Creates each item as POST /api/links would, one after the other (so the plan's allowance and the
 * same-destination rule decide in order), each with its own write from the budget. An item's
 * refusal is its outcome; only an unexpected failure stops the request.
 */
export async function createLinks(
  principal: Principal,
  items: readonly unknown[],
  spendWrite: (index: number) => Promise<void>,
): Promise<BulkOutcome[]> {
  requirePermission(principal, "links.create", "Your role in this workspace does not allow creating links.");
  const outcomes: BulkOutcome[] = [];
  for (const [index, item] of items.entries()) {
    try {
      await spendWrite(index);
      outcomes.push({ index, committed: await createLink(principal, validate(createLinkBody, item, "body")) });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcomes.push({ index, refusal: error });
    }
  }
  return outcomes;
}

/**
 * A link's preview image, for anyone (crawlers fetch it with no credentials): 404 when the link
 * has none, has a password (its preview is never shown) or was blocked for abuse (the service's
 * origin serves nothing of it). `version` is the address's ?v=, the image's digest when current:
 * the answer says how long it may be kept, a day at most, so a block reaches caches too.
 */
export async function previewImageDownload(id: string, version: string | null): Promise<Download & { cacheControl: string }> {
  const missing = "No link with this id has a preview image.";
  const found = await store.readPreviewImage(id, false);
  if (!found || found.passwordProtected || found.blocked) throw notFound(missing);
  const current = version !== null && version.length >= 8 && found.sha256.startsWith(version);
  return {
    etag: etagOf(found.sha256),
    contentType: found.contentType,
    // A versioned address never changes what it names; an unversioned one may be replaced at any time.
    cacheControl: current ? "public, max-age=86400" : "public, max-age=300",
    load: async () => {
      const image = await store.readPreviewImage(id, true);
      if (!image?.data || image.passwordProtected || image.blocked) throw notFound(missing);
      return { body: image.data, etag: etagOf(image.sha256) };
    },
  };
}
