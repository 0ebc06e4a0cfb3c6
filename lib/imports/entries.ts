import { type CreateEntitlement, requireCreateEntitlement } from "@/lib/billing/entitlement";
import * as domainStore from "@/lib/domains/store";
import { validate } from "@/lib/http/body";
import { DomainError } from "@/lib/http/errors";
import type { CommittedLink } from "@/lib/links/commit";
import { vetDestination } from "@/lib/links/destination-gate";
import { publishInvalidation } from "@/lib/links/invalidation";
import { importedLinkBody } from "@/lib/links/schemas";
import { createImportedLinks, type ImportedLink, type PreparedLink, prepareLink } from "@/lib/links/service";
import { canonicalCode } from "@/lib/links/slugs";
import type { Principal } from "@/lib/workspaces/types";
import { rowTurn } from "./capacity";
import type { ImportRow } from "./parser";
import type { EntryOutcome, ImportRecord } from "./store";
import * as store from "./store";

/** What this job has created so far: by what each created entry stands for, and by link. */
export type Made = {
  byKey: Map<string, { row: number; linkId: string | null }>;
  byLink: Map<string, number>;
};

export type JobContext = {
  principal: Principal;
  record: ImportRecord;
  /** The workspace's verified custom domains, by hostname. */
  domains: Map<string, string>;
  /** The hostname of the import's domain_id: where codes printed without a host go. */
  bareCodeHost: string | null;
  made: Made;
  /** Spends this many writes of the import's budget before as many links are written. */
  spendWrites: (writes: number) => Promise<void>;
  /** What the batch under way read for all its entries at once (lookupsFor). */
  batch: BatchLookups;
};

/** Read once a batch, not once an entry: the codes imported before, the links holding the batch's codes, the entitlement. */
export type BatchLookups = {
  /** Links of the workspace by the original short URL they were imported from. */
  imported: Map<string, string>;
  /** The link holding each of the batch's codes on a verified domain, by `host slug`. */
  holders: Map<string, store.SlugHolder>;
  /** The workspace may create links (null on a dry run, which creates none). */
  entitlement: Promise<CreateEntitlement> | null;
};

/**
 * The batch's lookups in three statements, whatever its size. An entry an earlier one of the same
 * batch decides (the same code, the same destination) is settled by what the job made, which it
 * reads first; the unique index still refuses a slug taken since.
 */
export async function lookupsFor(context: Omit<JobContext, "batch">, rows: ImportRow[]): Promise<BatchLookups> {
  const origins = rows.flatMap((row) => {
    try {
      const origin = originOf(context, row);
      return origin ? [origin] : [];
    } catch {
      return [];
    }
  });
  const workspaceId = context.record.workspaceId;
  const entitlement = context.record.dryRun ? null : requireCreateEntitlement(workspaceId);
  // Awaited by each entry, whose failed row carries the sentence; never an unhandled rejection meanwhile.
  entitlement?.catch(() => {});
  const [imported, holders] = await Promise.all([
    store.importedLinks(
      workspaceId,
      origins.map((origin) => origin.importedFrom),
    ),
    store.linksAt(origins.flatMap((origin) => (origin.target ? [origin.target] : []))),
  ]);
  return { imported, holders, entitlement };
}

/** Where a printed code lives: its original short URL (imported_from) and, on a verified domain of the workspace, its host and slug there. */
type Origin = { importedFrom: string; target: { domainId: string; host: string; slug: string } | null };

/**
 * Each entry's outcome, as if the entries had been handled one after another in file order:
 * - a code imported before (the same original short URL) is kept, with its link; one this import
 *   already made (an earlier row printed it too) is merged into that row's link;
 * - a code on a verified domain of the workspace becomes a link there with its exact slug; the slug
 *   already holding a link to the same destination of this workspace is kept, any other is failed;
 * - any other printed code becomes a new link of its own naming it (imported_from), even when
 *   another link has its destination, so the report can name the link carrying each code;
 * - a row without a code follows the same-destination rule: merged into the link an earlier row
 *   of this import made for it, kept when the workspace already has one, else created.
 * A dry run decides exactly so, writing nothing.
 */
export async function importEntry(context: JobContext, entry: number, row: ImportRow): Promise<EntryOutcome> {
  const decided = await decideEntry(context, entry, row);
  return "outcome" in decided ? decided : (await commitEntries(context, [decided]))[0]!;
}

/** An entry decided up to its write: a batch's entries are written together (commitEntries). */
export type PendingEntry = { entry: number; row: ImportRow; link: ImportedLink; keys: string[] };

/** importEntry up to the write: the entry's outcome, or the link it is to create. */
export async function decideEntry(context: JobContext, entry: number, row: ImportRow): Promise<EntryOutcome | PendingEntry> {
  const outcome = (result: Settled): EntryOutcome => ({ entry, row: row.row, code: row.shortLink, ...result });
  try {
    const origin = originOf(context, row);
    const rawKeys = origin ? [`url:${origin.importedFrom}`] : [`raw:${row.destination}`];
    const earlier = madeFor(context.made, rawKeys);
    if (earlier && origin && !context.made.byKey.has(printedKey(origin, row))) throw printedTwice(earlier.row, row);
    if (earlier) return outcome(merged(earlier));
    if (origin) {
      const imported = context.batch.imported.get(origin.importedFrom);
      if (imported) return outcome(keptOrMerged(context.made, imported));
    }
    if (origin?.target?.slug === "") return outcome(await importedRoot(context, row, origin.target, rawKeys));
    const prepared = await rowTurn(() => prepare(context, row, origin));
    if (origin?.target) {
      const holder = context.batch.holders.get(store.holderKey(origin.target));
      if (holder?.workspaceId === context.record.workspaceId && holder.destination === prepared.destination) {
        return outcome(keptOrMerged(context.made, holder.id));
      }
      if (holder) throw codeTaken(origin.target);
    }
    const keys = origin ? [...rawKeys, printedKey(origin, row)] : [...rawKeys, `destination:${prepared.destination}`];
    const sameDestination = madeFor(context.made, keys);
    if (sameDestination) return outcome(merged(sameDestination));
    if (context.record.dryRun && !origin) {
      const existing = await store.reusableLink(context.record.workspaceId, null, prepared.destination);
      if (existing) return outcome(kept(existing.id));
    }
    const importedFrom = origin?.importedFrom ?? null;
    const original = { importedFrom, createdAt: row.createdAt ? new Date(row.createdAt) : null, archived: row.archived ?? false };
    return { entry, row, keys, link: { prepared, origin: original } };
  } catch (error) {
    if (error instanceof DomainError) return failedEntry(entry, row, error);
    throw error;
  }
}

/**
 * Writes decided entries together: the import's budget spent for all of them, then one
 * createImportedLinks (one transaction without a cap). Each entry's outcome in their order, and what
 * each made remembered for the entries after it.
 */
export async function commitEntries(context: JobContext, pending: readonly PendingEntry[]): Promise<EntryOutcome[]> {
  if (pending.length === 0) return [];
  // A dry run writes nothing: each entry would be created, as the rows after it see.
  if (context.record.dryRun) return pending.map((item) => createdEntry(context, item, null));
  let results: (CommittedLink | DomainError)[];
  try {
    const entitlement = await context.batch.entitlement!;
    await context.spendWrites(pending.length);
    results = await rowTurn(() =>
      createImportedLinks(
        context.principal,
        pending.map((item) => item.link),
        entitlement,
      ),
    );
  } catch (error) {
    if (error instanceof DomainError) return pending.map((item) => failedEntry(item.entry, item.row, error));
    throw error;
  }
  return pending.map((item, index) => {
    const result = results[index]!;
    if (result instanceof DomainError) return failedEntry(item.entry, item.row, result);
    if (!result.created)
      return { entry: item.entry, row: item.row.row, code: item.row.shortLink, ...keptOrMerged(context.made, result.link.id) };
    return createdEntry(context, item, result.link.id);
  });
}

/** An entry that made its link (none on a dry run), remembered for the entries after it. */
function createdEntry(context: JobContext, item: PendingEntry, linkId: string | null): EntryOutcome {
  remember(context.made, item.keys, item.row.row, linkId);
  return {
    entry: item.entry,
    row: item.row.row,
    code: item.row.shortLink,
    outcome: "created",
    linkId,
    mergedInto: null,
    error: null,
    keys: item.keys,
  };
}

/** Something this import made since the entry was decided shares one of its keys: it must be decided again. */
export function madeSince(context: JobContext, item: PendingEntry): boolean {
  return madeFor(context.made, item.keys) !== null;
}

function failedEntry(entry: number, row: ImportRow, error: DomainError): EntryOutcome {
  return {
    entry,
    row: row.row,
    code: row.shortLink,
    outcome: "failed",
    linkId: null,
    mergedInto: null,
    error: error.message,
    keys: [],
    subject: row.shortLink ?? (row.destination || row.title) ?? undefined,
  };
}

/**
 * A verified domain's root printed by the source (Dub's `_root`): the domain's root_destination,
 * through the links' destination gate. Kept when the domain already sends its root there; failed
 * when it sends it elsewhere (the customer decides, never the import); a dry run writes nothing.
 */
async function importedRoot(
  context: JobContext,
  row: ImportRow,
  target: { domainId: string; host: string },
  keys: string[],
): Promise<Settled> {
  const destination = await rowTurn(() => vetDestination(row.destination, { lookups: !context.record.dryRun }));
  // What the root had before: null when this row gives it its destination (a dry run only looks).
  const before = context.record.dryRun
    ? await domainStore.domainRoot(target.domainId)
    : await domainStore.claimDomainRoot(target.domainId, destination);
  if (before !== null && before.destination !== destination) {
    const now = before.blocked
      ? `is set to ${before.destination}, which the safety re-check stopped serving (${before.blocked})`
      : `already sends visitors to ${before.destination}`;
    throw new DomainError(
      "conflict",
      `The root of ${target.host} ${now}: change it on the domain if this row's destination should have it instead.`,
    );
  }
  if (before?.blocked) {
    // The same destination, which the background re-check stopped serving: visitors get our plain page, so nothing is kept.
    throw new DomainError(
      "refused",
      `The root of ${target.host} is set to this destination, but the safety re-check stopped sending visitors there ` +
        `(${before.blocked}): set the domain's root again once the destination is safe.`,
    );
  }
  if (before !== null) return { outcome: "kept", linkId: null, mergedInto: null, error: null, keys: [] };
  remember(context.made, keys, row.row, null);
  if (!context.record.dryRun) publishInvalidation({ kind: "domain", hostname: target.host });
  return { outcome: "created", linkId: null, mergedInto: null, error: null, keys };
}

/** The keys an entry may share with an earlier one: what decides whether it must wait for it (lib/imports/job.ts). */
export function entryKeys(context: Pick<JobContext, "domains" | "bareCodeHost">, row: ImportRow): string[] {
  try {
    const origin = originOf(context, row);
    return origin ? [`url:${origin.importedFrom}`] : [`raw:${row.destination}`];
  } catch {
    return [];
  }
}

/** Entries kept with a link this import made in the same batch, found before that row was remembered: merged, as in file order. */
export function settledAgainst(made: Made, outcome: EntryOutcome): EntryOutcome {
  const row = outcome.outcome === "kept" && outcome.linkId ? made.byLink.get(outcome.linkId) : undefined;
  return row === undefined ? outcome : { ...outcome, outcome: "merged", mergedInto: row };
}

/** The made entries a resumed job starts from. */
export function madeFrom(entries: { row: number; linkId: string | null; keys: string[] }[]): Made {
  const made: Made = { byKey: new Map(), byLink: new Map() };
  for (const entry of entries) remember(made, entry.keys, entry.row, entry.linkId);
  return made;
}

function remember(made: Made, keys: string[], row: number, linkId: string | null): void {
  for (const key of keys) if (!made.byKey.has(key)) made.byKey.set(key, { row, linkId });
  if (linkId) made.byLink.set(linkId, row);
}

function madeFor(made: Made, keys: string[]): { row: number; linkId: string | null } | null {
  for (const key of keys) {
    const found = made.byKey.get(key);
    if (found) return found;
  }
  return null;
}

type Settled = Omit<EntryOutcome, "entry" | "row" | "code">;

const merged = (into: { row: number; linkId: string | null }): Settled => ({
  outcome: "merged",
  linkId: into.linkId,
  mergedInto: into.row,
  error: null,
  keys: [],
});

const kept = (linkId: string): Settled => ({ outcome: "kept", linkId, mergedInto: null, error: null, keys: [] });

function keptOrMerged(made: Made, linkId: string): Settled {
  const row = made.byLink.get(linkId);
  return row === undefined ? kept(linkId) : merged({ row, linkId });
}

/** The row as a create: the same validation and destination checks as POST /api/links (no lookups on a dry run). */
async function prepare(context: JobContext, row: ImportRow, origin: Origin | null): Promise<PreparedLink> {
  const target = origin?.target;
  const input = validate(
    importedLinkBody,
    {
      destination: row.destination,
      ...(target && { slug: target.slug, domain_id: target.domainId }),
      ...(row.title && { title: row.title }),
      ...(row.tags.length > 0 && { tags: row.tags }),
      ...(row.password && { password: row.password }),
      ...((row.previewTitle || row.previewDescription) && {
        preview: { title: row.previewTitle ?? null, description: row.previewDescription ?? null },
      }),
    },
    "body",
  );
  return prepareLink(context.record.workspaceId, input, {
    lookups: !context.record.dryRun,
    ...(target && { verifiedDomain: { id: target.domainId, hostname: target.host } }),
  });
}

/** A code printed with this destination: a later row printing both again is merged into the first. */
const printedKey = (origin: Origin, row: ImportRow) => `printed:${origin.importedFrom} ${row.destination}`;

function printedTwice(earlierRow: number, row: ImportRow): DomainError {
  return new DomainError(
    "conflict",
    `Row ${earlierRow} of this file already imported the code "${row.shortLink}" with another destination: ` +
      `one code leads to one place, so this row was not imported.`,
  );
}

function codeTaken(target: { host: string; slug: string }): DomainError {
  return new DomainError(
    "conflict",
    `The slug "${target.slug}" is already taken on ${target.host} by another link (another destination, or another ` +
      `workspace's): this code was not imported.`,
  );
}

/**
 * A row's printed code: a short URL (bit.ly/abc, https://go.example.com/menu) or a code the source
 * printed without its host (a generic file's slug). A code on a verified domain of the workspace
 * keeps its slug there; a code without a host goes to the import's domain_id when it names one.
 * A code on any other host is never put on the customer's domain: it is that host's code.
 */
export function originOf(context: Pick<JobContext, "domains" | "bareCodeHost">, row: ImportRow): Origin | null {
  const printed = row.shortLink;
  if (!printed) return null;
  if (!/[./]/.test(printed)) {
    const host = context.bareCodeHost;
    return host
      ? {
          importedFrom: `${host}/${printed}`,
          target: { domainId: context.domains.get(host)!, host, slug: canonicalCode(printed) },
        }
      : { importedFrom: printed, target: null };
  }
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(printed) ? printed : `https://${printed}`);
  } catch {
    throw new DomainError("invalid_request", `The short link "${printed}" is not a URL this import can read.`);
  }
  const domainId = context.domains.get(url.hostname);
  const slug = decodedPath(url.pathname, printed);
  // A domain's root (Dub's _root) is no code: on a verified domain it becomes where the root goes (slug "").
  return {
    importedFrom: `${url.host}${url.pathname}`,
    target: domainId ? { domainId, host: url.hostname, slug } : null,
  };
}

function decodedPath(pathname: string, printed: string): string {
  try {
    return canonicalCode(decodeURIComponent(pathname.slice(1)));
  } catch {
    throw new DomainError("invalid_request", `The short link "${printed}" has a broken percent-escape in its code.`);
  }
}
