import { clock } from "@/lib/clock";
import { db, transaction } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { pool } from "@/lib/db/pool";
import { replicaMayMissCommitsForMs, usableReplicaPool } from "@/lib/db/replica";
import { type ChangedBy, linkChanged } from "@/lib/links/changes";
import { previewOf, type StoredPreview } from "@/lib/links/preview";
import { storedRules, storedSchedule } from "@/lib/links/routing";
import { ABUSE, ACTIVE, asLinkStatus, type LinkStatus, QUARANTINE, quarantineEntry } from "@/lib/links/status";
import { findLinkForUpdate, readLink } from "@/lib/links/store";
import { processSingleton } from "@/lib/process-singleton";
import { LRUCache } from "lru-cache";
import type pg from "pg";
import { compileRules } from "./rules";
import type { ResolvedLink } from "./types";

const RESOLUTION_COLUMNS = {
  id: true,
  host: true,
  slug: true,
  destination: true,
  status: true,
  createdAt: true,
  cleanChecks: true,
  lastCountedCheckAt: true,
  abuseReason: true,
  rules: true,
  schedule: true,
  title: true,
  passwordHash: true,
  scanLimitAfter: true,
  scanLimitDestination: true,
  previewTitle: true,
  previewDescription: true,
  previewImage: true,
} as const satisfies Prisma.LinkSelect;

type Row = Prisma.LinkGetPayload<{ select: typeof RESOLUTION_COLUMNS }>;

function toResolved(row: Row): ResolvedLink {
  const schedule = storedSchedule(row.schedule);
  const { scanLimitAfter, scanLimitDestination, previewTitle, previewDescription, previewImage, ...rest } = row;
  return {
    ...rest,
    preview: resolvedPreview(row.id, { previewTitle, previewDescription, previewImage }),
    scanLimit:
      scanLimitAfter !== null && scanLimitDestination !== null
        ? { after: scanLimitAfter, destination: scanLimitDestination }
        : null,
    status: asLinkStatus(row.status),
    createdAt: row.createdAt.getTime(),
    lastCountedCheckAt: row.lastCountedCheckAt?.getTime() ?? null,
    rules: compileRules(storedRules(row.rules)),
    schedule: schedule.length > 0 ? schedule : null,
  };
}

/** The preview as the preview page needs it, its image as the address crawlers fetch. */
function resolvedPreview(id: string, stored: StoredPreview): ResolvedLink["preview"] {
  const preview = previewOf({ id, ...stored });
  return preview && { title: preview.title, description: preview.description, imageUrl: preview.image_url };
}

/** The columns resolution reads, for the raw statements below. */
const RESOLUTION_SELECT_LIST = `id, host, slug, destination, status, created_at AS "createdAt", clean_checks AS "cleanChecks",
    last_counted_check_at AS "lastCountedCheckAt", abuse_reason AS "abuseReason", rules, schedule, title,
    password_hash AS "passwordHash", scan_limit_after AS "scanLimitAfter", scan_limit_destination AS "scanLimitDestination",
    preview_title AS "previewTitle", preview_description AS "previewDescription", preview_image AS "previewImage"`;

/**
 * Every (host, slug) asked for in one statement. COALESCE(host, '') is the unique index's own
 * expression (links_host_slug_key), so each pair is one index probe; "host IS NULL" could not use it.
 */
export const FIND_LINKS = `
  SELECT ${RESOLUTION_SELECT_LIST}
  FROM links WHERE (COALESCE(host, ''), slug) IN (SELECT * FROM unnest($1::text[], $2::text[]))`;

/**
 * For codes with no exact link (ADR 0010): every link of the code's host equal to it ignoring
 * case, through links_host_slug_fold_idx, with the lookup it answers (`lookup_index`). Only a
 * lookup with exactly one such link is answered by it.
 */
export const FIND_FOLDED_LINKS = `
  SELECT ${RESOLUTION_SELECT_LIST}, q.lookup_index AS "lookupIndex"
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q(lookup_host, lookup_slug, lookup_index)
  JOIN links ON COALESCE(links.host, '') = q.lookup_host AND lower(links.slug) = lower(q.lookup_slug)`;

/** More than this many lookups waiting are sent at once rather than after the current turn of the event loop. */
const MAX_BATCH = 500;

type Lookup = { host: string; slug: string; settle(link: ResolvedLink | null): void; fail(error: unknown): void };
/** The lookups of this turn of the event loop, sent together. */
const batch = processSingleton("resolutionLookupsWaiting", () => ({ waiting: [] as Lookup[] }));

/**
 * The link on this host and slug, archived or not: an issued code always resolves. Lookups made
 * in one turn of the event loop (visits arriving together) share one prepared statement and one
 * round trip, so a burst of cold misses costs a few queries rather than one each.
 */
export function findLink(host: string | null, slug: string): Promise<ResolvedLink | null> {
  return new Promise((settle, fail) => {
    const { waiting } = batch.get();
    if (waiting.length === 0) setImmediate(lookUpWaiting);
    waiting.push({ host: host ?? "", slug, settle, fail });
    if (waiting.length >= MAX_BATCH) lookUpWaiting();
  });
}

/**
 * Links that changed a moment ago (an invalidation dropped their cached copy): read from the
 * primary until the replica must have replayed the change, or the cache would be refilled with the
 * copy the change replaced, on every instance, for the cache's whole lifetime.
 */
const changedRecently = processSingleton("resolution.changedRecently", () => ({
  at: new LRUCache<string, number>({ max: 100_000 }),
  everythingAt: -Infinity,
}));

/** Reads this link (or, with `slug` null, every link) from the primary for as long as the replica may miss its change. */
export function readFromPrimaryAfterChange(host: string | null, slug: string | null): void {
  const now = clock().now();
  if (slug === null) changedRecently.get().everythingAt = now;
  else changedRecently.get().at.set(`${host ?? ""}/${slug}`, now);
}

function changedAMomentAgo(lookup: Lookup, now: number): boolean {
  const recent = changedRecently.get();
  const changedAt = Math.max(recent.everythingAt, recent.at.get(`${lookup.host}/${lookup.slug}`) ?? -Infinity);
  return now < changedAt + replicaMayMissCommitsForMs();
}

function lookUpWaiting(): void {
  const lookups = batch.get().waiting;
  batch.get().waiting = [];
  if (lookups.length === 0) return;
  const replica = usableReplicaPool();
  const now = clock().now();
  const fromPrimary = replica ? lookups.filter((lookup) => changedAMomentAgo(lookup, now)) : lookups;
  const fromReplica = replica ? lookups.filter((lookup) => !changedAMomentAgo(lookup, now)) : [];
  const settleMissing = (missing: Lookup[]) => {
    for (const lookup of missing) lookup.settle(null);
  };
  const failAll = (failed: Lookup[]) => (error: unknown) => {
    for (const lookup of failed) lookup.fail(error);
  };
  if (fromPrimary.length > 0)
    findLinks(pool(), fromPrimary)
      .then((missing) => findFoldedLinks(pool(), missing))
      .then(settleMissing, failAll(fromPrimary));
  if (fromReplica.length > 0)
    findLinks(replica!, fromReplica)
      // The replica may not have a link created a moment ago: what it lacks is asked of the primary
      // before anyone is told "unknown", so a new link resolves everywhere at once.
      .then((missing) => (missing.length > 0 ? findLinks(pool(), missing) : missing))
      .then((missing) => findFoldedLinks(pool(), missing))
      .then(settleMissing, failAll(fromReplica));
}

/** As long as a visit waits for the store (resolve.ts): the lookup's connection is given up with it. */
const LOOKUP_TIMEOUT_MS = 2000;

/** Settles the lookups found on `source`; resolves to those it does not have. */
async function findLinks(source: pg.Pool, lookups: Lookup[]): Promise<Lookup[]> {
  const { rows } = await source.query<Row>({
    name: "resolution-find-links",
    text: FIND_LINKS,
    values: [lookups.map((lookup) => lookup.host), lookups.map((lookup) => lookup.slug)],
    // A lookup takes milliseconds. Unanswered by then, its connection died in silence (a cut whose
    // packets vanish) or the database hangs: the pool discards the connection with the failed
    // query, instead of handing it to the next lookups, which would wait on it too.
    query_timeout: LOOKUP_TIMEOUT_MS,
  } as pg.QueryConfig);
  const found = new Map(rows.map((row) => [`${row.host ?? ""}/${row.slug}`, toResolved(row)]));
  const missing: Lookup[] = [];
  for (const lookup of lookups) {
    const link = found.get(`${lookup.host}/${lookup.slug}`);
    if (link) lookup.settle(link);
    else missing.push(lookup);
  }
  return missing;
}

/**
 * Settles each lookup with no exact link whose code matches exactly one link of its host ignoring
 * case (a code typed in the wrong case, ADR 0010); resolves to the rest. Exact hits never get here.
 */
async function findFoldedLinks(source: pg.Pool, lookups: Lookup[]): Promise<Lookup[]> {
  if (lookups.length === 0) return lookups;
  const { rows } = await source.query<Row & { lookupIndex: string }>({
    name: "resolution-find-folded-links",
    text: FIND_FOLDED_LINKS,
    values: [lookups.map((lookup) => lookup.host), lookups.map((lookup) => lookup.slug)],
    query_timeout: LOOKUP_TIMEOUT_MS,
  } as pg.QueryConfig);
  const matches = new Map<number, Row[]>();
  for (const { lookupIndex, ...row } of rows) {
    const index = Number(lookupIndex) - 1;
    matches.set(index, [...(matches.get(index) ?? []), row]);
  }
  const missing: Lookup[] = [];
  lookups.forEach((lookup, index) => {
    const found = matches.get(index);
    if (found?.length === 1) lookup.settle(toResolved(found[0]!));
    else missing.push(lookup);
  });
  return missing;
}

export async function findLinkById(id: string): Promise<ResolvedLink | null> {
  const row = await db().link.findUnique({ where: { id }, select: RESOLUTION_COLUMNS });
  return row ? toResolved(row) : null;
}

/** Releases and safety blocks are the service's own doing. */
const SERVICE: ChangedBy = { kind: "service" };

export type ReleasePolicy = { spacingMs: number; releaseChecks: number; releaseAgeMs: number };

/**
 * Counts one clean check, and releases the link when it has enough counted checks and is old
 * enough, in one statement: concurrent visits can neither count twice within the spacing nor
 * release twice. Null when the check did not count (too soon, no longer quarantined, or the link
 * was repointed after `checkedDestination` was checked).
 */
export function countCleanCheck(
  linkId: string,
  checkedDestination: string,
  now: number,
  policy: ReleasePolicy,
): Promise<ResolvedLink | null> {
  // Visits arriving together at a new link would each open a transaction for the same count; one
  // counts, the others are answered as "counted elsewhere first", which they would be anyway.
  const counting = countingNow.get();
  if (counting.has(linkId)) return Promise.resolve(null);
  counting.add(linkId);
  return countInTransaction(linkId, checkedDestination, now, policy).finally(() => counting.delete(linkId));
}

/** Links this process is counting a clean check of right now. */
const countingNow = processSingleton("resolutionCountingNow", () => new Set<string>());

async function countInTransaction(
  linkId: string,
  checkedDestination: string,
  now: number,
  policy: ReleasePolicy,
): Promise<ResolvedLink | null> {
  const nowDate = new Date(now);
  const countableBefore = new Date(now - policy.spacingMs);
  const releasableBefore = new Date(now - policy.releaseAgeMs);
  const rows = await transaction(async (tx) => {
    const counted = await tx.$queryRaw<Row[]>`
    UPDATE links SET
      clean_checks = clean_checks + 1,
      last_counted_check_at = ${nowDate},
      last_checked_at = ${nowDate},
      status = CASE WHEN clean_checks + 1 >= ${policy.releaseChecks} AND quarantined_at <= ${releasableBefore} THEN 0 ELSE status END
    WHERE id = ${linkId} AND status = 1 AND destination = ${checkedDestination}
      AND (last_counted_check_at IS NULL OR last_counted_check_at <= ${countableBefore})
    RETURNING ${Prisma.raw(RESOLUTION_SELECT_LIST)}`;
    // Only a quarantined link is counted, so a counted row that is active now was released by this
    // statement, which changed nothing else the link's announcement shows.
    if (counted[0]?.status === ACTIVE) {
      const link = await readLink(linkId, tx);
      await linkChanged(tx, { kind: "status_changed", link, before: { ...link, status: QUARANTINE }, by: SERVICE });
    }
    return counted;
  });
  return rows[0] ? toResolved(rows[0]) : null;
}

/**
 * Counts one scan toward the link's scan limit, and at the last one switches the link to the
 * limit's destination, in one statement: under the row's lock each visit gets its own count, so
 * exactly `after` visits are sent to the old destination however many arrive at once. The switch
 * is a repoint (quarantine afresh, as a scheduled one is) and is announced in the same
 * transaction. "counted": this visit is within the limit (the last one switched it); "gone": the
 * link has no limit any more (switched or removed since it was cached; `link` is it as it is now).
 */
export async function countScan(link: ResolvedLink): Promise<{ kind: "counted" } | { kind: "gone"; link: ResolvedLink | null }> {
  const now = new Date(clock().now());
  const switched = await transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ switched: boolean }[]>`
      UPDATE links SET
        scan_limit_count = scan_limit_count + 1,
        destination = CASE WHEN scan_limit_count + 1 >= scan_limit_after THEN scan_limit_destination ELSE destination END,
        status = CASE WHEN scan_limit_count + 1 >= scan_limit_after THEN 1 ELSE status END,
        clean_checks = CASE WHEN scan_limit_count + 1 >= scan_limit_after THEN 0 ELSE clean_checks END,
        last_counted_check_at = CASE WHEN scan_limit_count + 1 >= scan_limit_after THEN NULL ELSE last_counted_check_at END,
        quarantined_at = CASE WHEN scan_limit_count + 1 >= scan_limit_after THEN ${now} ELSE quarantined_at END,
        updated_at = CASE WHEN scan_limit_count + 1 >= scan_limit_after THEN ${now} ELSE updated_at END,
        scan_limit_destination = CASE WHEN scan_limit_count + 1 >= scan_limit_after THEN NULL ELSE scan_limit_destination END,
        scan_limit_after = CASE WHEN scan_limit_count + 1 >= scan_limit_after THEN NULL ELSE scan_limit_after END
      WHERE id = ${link.id} AND scan_limit_after IS NOT NULL AND status <> 2
      RETURNING scan_limit_after IS NULL AS switched`;
    if (rows.length === 0) return null;
    if (rows[0]!.switched) {
      const after = await readLink(link.id, tx);
      const before = {
        ...after,
        destination: link.destination,
        status: link.status,
        scanLimitAfter: link.scanLimit!.after,
        scanLimitDestination: link.scanLimit!.destination,
      };
      await linkChanged(tx, { kind: "scan_limit_reached", link: after, before, by: SERVICE });
    }
    return rows[0]!.switched;
  });
  return switched === null ? { kind: "gone", link: await findLinkById(link.id) } : { kind: "counted" };
}

/** Records that a live check ran without counting (unknown verdict, or the background job). */
export async function markChecked(linkId: string, now: number): Promise<void> {
  await db().link.update({ where: { id: linkId }, data: { lastCheckedAt: new Date(now) } });
}

/** An operator moves a link to a status; returns the updated link, or null when it does not exist. */
export async function setStatus(linkId: string, status: LinkStatus, abuseReason: string | null): Promise<ResolvedLink | null> {
  const changed = await transaction(async (tx) => {
    const before = await findLinkForUpdate(tx, linkId);
    if (!before) return false;
    await tx.link.update({
      where: { id: linkId },
      data: {
        status,
        abuseReason: status === ABUSE ? abuseReason : null,
        updatedAt: new Date(clock().now()),
        ...(status === QUARANTINE && quarantineEntry(new Date(clock().now()))),
      },
    });
    await linkChanged(tx, { kind: "status_changed", link: await readLink(linkId, tx), before, by: { kind: "operator" } });
    return true;
  });
  return changed ? findLinkById(linkId) : null;
}

/**
 * Blocks a link for abuse unless it already is; returns the updated link when this call blocked
 * it. With `checkedDestination`, only while the link still holds it, as its own destination, a
 * rule's or a scheduled one (a verdict about a destination it no longer sends anyone to blocks
 * nothing).
 */
export async function blockForAbuse(linkId: string, reason: string, checkedDestination?: string): Promise<ResolvedLink | null> {
  const blocked = await transaction(async (tx) => {
    const before = await findLinkForUpdate(tx, linkId);
    if (!before) return false;
    // Under the row's lock the statement's own conditions decide, so two verdicts at once block once.
    const { count } = await tx.link.updateMany({
      where: { id: linkId, status: { not: ABUSE }, ...(checkedDestination && holding(checkedDestination)) },
      data: { status: ABUSE, abuseReason: reason, updatedAt: new Date(clock().now()) },
    });
    if (count === 1) await linkChanged(tx, { kind: "status_changed", link: await readLink(linkId, tx), before, by: SERVICE });
    return count === 1;
  });
  return blocked ? findLinkById(linkId) : null;
}

/** Links that hold `destination`: as their own, a rule's (rules @> [{destination}]), a scheduled one or their scan limit's. */
function holding(destination: string): Prisma.LinkWhereInput {
  return {
    OR: [
      { destination },
      { rules: { array_contains: [{ destination }] } },
      { schedule: { array_contains: [{ destination }] } },
      { scanLimitDestination: destination },
    ],
  };
}

/** A link the background re-check looks at: every destination it holds. */
const DUE_LINK_COLUMNS = {
  id: true,
  status: true,
  destination: true,
  rules: true,
  schedule: true,
  scanLimitAfter: true,
  scanLimitDestination: true,
} as const;
export type DueLink = Prisma.LinkGetPayload<{ select: typeof DUE_LINK_COLUMNS }>;

/** Quarantined links not checked since `checkedBefore`, never-checked and longest-waiting first. */
export function quarantinedLinksDue(checkedBefore: Date, limit: number): Promise<DueLink[]> {
  return db().link.findMany({
    where: { status: QUARANTINE, OR: [{ lastCheckedAt: null }, { lastCheckedAt: { lte: checkedBefore } }] },
    orderBy: [{ lastCheckedAt: { sort: "asc", nulls: "first" } }, { id: "asc" }],
    take: limit,
    select: DUE_LINK_COLUMNS,
  });
}

/** Active links, the least recently checked first: the re-check's sample of destinations that may have turned bad. */
export function leastRecentlyCheckedActiveLinks(limit: number): Promise<DueLink[]> {
  return db().link.findMany({
    where: { status: ACTIVE },
    orderBy: [{ lastCheckedAt: { sort: "asc", nulls: "first" } }, { id: "asc" }],
    take: limit,
    select: DUE_LINK_COLUMNS,
  });
}

/**
 * Adds crawler visits to links' preview counts, one statement for a batch (lib/resolution/previews.ts
 * gathers them): a preview shown is counted here, never as a scan.
 */
export async function addPreviewCounts(counts: ReadonlyMap<string, number>): Promise<void> {
  if (counts.size === 0) return;
  await pool().query({
    name: "resolution-add-preview-counts",
    text: `UPDATE links SET preview_count = preview_count + counted.n
      FROM unnest($1::text[], $2::int[]) AS counted(id, n) WHERE links.id = counted.id`,
    values: [[...counts.keys()], [...counts.values()]],
  });
}
