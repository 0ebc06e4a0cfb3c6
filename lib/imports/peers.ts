import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { DomainError } from "@/lib/http/errors";
import { INTERNAL_ADDRESS_CODE, outboundRequest } from "@/lib/safety/outbound";
import { sealUnderAuthSecret, unsealUnderAuthSecret } from "@/lib/webhooks/secret";
import { setTimeout as sleep } from "node:timers/promises";
import { type ImportRow, jsonValue, peerPageRows } from "./parser";
import type { ImportPeer, PeerImportRequest } from "./schemas";

/**
 * An import by API token pages through the peer's own API, as each documents it, under the
 * outbound rules of webhooks (lib/safety/outbound.ts: public addresses only, checked at the moment
 * of connecting, no redirect followed, bounded bytes and time):
 *
 * - Dub: `GET /links?page=N&pageSize=100` with `Authorization: Bearer <key>`; an array of links, the
 *   last page shorter than the page size.
 * - Rebrandly: `GET /v1/links?limit=25&orderBy=createdAt&orderDir=desc&last=<id>` with the `apikey`
 *   header (and `workspace` when the customer names one); an array, keyset-paged by the last id.
 * - Short.io: `GET /api/domains`, then for each domain `GET /api/links?domain_id=<id>&limit=150&pageToken=<t>`
 *   with `authorization: <key>`; `{links, nextPageToken}`, the last page without a token.
 *
 * Each page's links go through the same per-source mapping as that peer's file (lib/imports/parser.ts).
 */

const PEER_NAMES: Record<ImportPeer, string> = { dub: "Dub", rebrandly: "Rebrandly", shortio: "Short.io" };
const DUB_PAGE_SIZE = 100;
const REBRANDLY_PAGE_SIZE = 25;
const SHORTIO_PAGE_SIZE = 150;

/** A page of links is a few hundred KB at most; a larger answer is not a page of links. */
const MAX_PAGE_BYTES = 8 * 1024 * 1024;
const PAGE_TIMEOUT_MS = 30_000;
/** A 5xx or a dropped connection is asked again this many times, after 0.5 s, 1 s, 2 s. */
const SERVER_RETRIES = 3;
const RETRY_BASE_MS = 500;
/** A 429's Retry-After is waited for up to this long at a time, and at most RATE_LIMIT_WAIT_SECONDS for one page. */
const MAX_RETRY_AFTER_SECONDS = 120;
const RATE_LIMIT_WAIT_SECONDS = 600;
/** Without a Retry-After, a 429 waits this long. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

const TOKEN_LABEL = "import API keys";

/** Where the next page is, kept on the import (peer_cursor) so a resumed job asks for the page it had not finished. */
export type PeerCursor = {
  source: ImportPeer;
  /** Links the peer has listed so far: the next page's first link is row listed + 1. */
  listed: number;
  /** Rebrandly: the workspace the customer named. */
  workspace?: string;
  /** Short.io: only this domain's links. */
  domain?: string;
  /** Dub: the page to ask for. */
  page?: number;
  /** Rebrandly: the last link's id of the page before. */
  last?: string;
  /** Short.io: the account's domains, once listed, and the one being read. */
  domains?: { id: string; hostname: string }[];
  domainIndex?: number;
  pageToken?: string;
};

/** A page: its links as rows, and where the next is (null after the last). */
export type PeerPage = { rows: ImportRow[]; next: PeerCursor | null };

/** Why the job stops: a sentence for the customer (never the key, never the peer's raw answer). */
export class PeerFailure extends Error {}

export function firstCursor(request: PeerImportRequest): PeerCursor {
  return {
    source: request.source,
    listed: 0,
    ...(request.source === "dub" && { page: 1 }),
    ...(request.source === "rebrandly" && request.workspace && { workspace: request.workspace }),
    ...(request.source === "shortio" && request.domain && { domain: request.domain }),
  };
}

/** The refusal of options a peer does not take: a workspace is Rebrandly's, a domain Short.io's. */
export function requireOptionsOf(request: PeerImportRequest): void {
  if (request.workspace && request.source !== "rebrandly")
    throw new DomainError("invalid_request", `workspace is Rebrandly's: ${PEER_NAMES[request.source]}'s API key names its own.`);
  if (request.domain && request.source !== "shortio")
    throw new DomainError(
      "invalid_request",
      `domain is Short.io's: ${PEER_NAMES[request.source]}'s import reads every link the key may read.`,
    );
}

/** The key as kept while pages remain: sealed as webhook secrets are, under a key of its own. */
export const sealPeerToken = (token: string) => sealUnderAuthSecret(token, TOKEN_LABEL);
export const openPeerToken = (sealed: string) => unsealUnderAuthSecret(sealed, TOKEN_LABEL);

export const peerName = (source: ImportPeer) => PEER_NAMES[source];

type Wait = (ms: number) => Promise<unknown>;

/** The page the cursor names, read and mapped; a PeerFailure when the peer refuses or keeps failing. */
export async function nextPage(cursor: PeerCursor, token: string, wait: Wait = sleep): Promise<PeerPage> {
  switch (cursor.source) {
    case "dub":
      return dubPage(cursor, token, wait);
    case "rebrandly":
      return rebrandlyPage(cursor, token, wait);
    case "shortio":
      return shortioPage(cursor, token, wait);
  }
}

async function dubPage(cursor: PeerCursor, token: string, wait: Wait): Promise<PeerPage> {
  const page = cursor.page ?? 1;
  const url = `${base(config().DUB_API_BASE)}/links?page=${page}&pageSize=${DUB_PAGE_SIZE}`;
  const links = listOf(cursor.source, await askPeer(cursor.source, url, { authorization: `Bearer ${token}` }, wait));
  const listed = cursor.listed + links.length;
  return {
    rows: await peerPageRows(links, "dub", cursor.listed + 1),
    next: links.length < DUB_PAGE_SIZE ? null : { ...cursor, page: page + 1, listed },
  };
}

async function rebrandlyPage(cursor: PeerCursor, token: string, wait: Wait): Promise<PeerPage> {
  const query = new URLSearchParams({ limit: String(REBRANDLY_PAGE_SIZE), orderBy: "createdAt", orderDir: "desc" });
  if (cursor.last) query.set("last", cursor.last);
  const headers = { apikey: token, ...(cursor.workspace && { workspace: cursor.workspace }) };
  const url = `${base(config().REBRANDLY_API_BASE)}/v1/links?${query}`;
  const links = listOf(cursor.source, await askPeer(cursor.source, url, headers, wait));
  const rows = await peerPageRows(links, "rebrandly", cursor.listed + 1);
  if (links.length < REBRANDLY_PAGE_SIZE) return { rows, next: null };
  const last = links.at(-1)!.id;
  if (typeof last !== "string" || last === "")
    throw new PeerFailure("Rebrandly's API answered a page whose last link has no id, so the next page cannot be asked for.");
  return { rows, next: { ...cursor, last, listed: cursor.listed + links.length } };
}

async function shortioPage(cursor: PeerCursor, token: string, wait: Wait): Promise<PeerPage> {
  const headers = { authorization: token };
  if (!cursor.domains) {
    const domains = domainsOf(await askPeer(cursor.source, `${base(config().SHORTIO_API_BASE)}/api/domains`, headers, wait));
    const chosen = cursor.domain ? domains.filter((domain) => domain.hostname.toLowerCase() === cursor.domain) : domains;
    if (cursor.domain && chosen.length === 0)
      throw new PeerFailure(
        `The Short.io account has no domain ${cursor.domain}: check the domain's name, or leave it empty to bring every domain's links.`,
      );
    return { rows: [], next: chosen.length === 0 ? null : { ...cursor, domains: chosen, domainIndex: 0 } };
  }
  const index = cursor.domainIndex ?? 0;
  const domain = cursor.domains[index]!;
  const query = new URLSearchParams({ domain_id: domain.id, limit: String(SHORTIO_PAGE_SIZE) });
  if (cursor.pageToken) query.set("pageToken", cursor.pageToken);
  const answer = await askPeer(cursor.source, `${base(config().SHORTIO_API_BASE)}/api/links?${query}`, headers, wait);
  const page = answer as { links?: unknown; nextPageToken?: unknown } | null;
  const links = listOf(cursor.source, page?.links);
  const rows = await peerPageRows(links, "shortio", cursor.listed + 1);
  const listed = cursor.listed + links.length;
  const { pageToken: _done, ...rest } = cursor;
  if (typeof page?.nextPageToken === "string" && page.nextPageToken !== "" && links.length > 0)
    return { rows, next: { ...rest, listed, pageToken: page.nextPageToken } };
  return { rows, next: index + 1 < cursor.domains.length ? { ...rest, listed, domainIndex: index + 1 } : null };
}

/** Short.io's domains: [{ id, hostname, … }]. */
function domainsOf(answer: unknown): { id: string; hostname: string }[] {
  if (!Array.isArray(answer)) throw new PeerFailure("Short.io's API answered the list of domains with something else.");
  return answer.flatMap((domain: { id?: unknown; hostname?: unknown } | null) =>
    domain && (typeof domain.id === "number" || typeof domain.id === "string") && typeof domain.hostname === "string"
      ? [{ id: String(domain.id), hostname: domain.hostname }]
      : [],
  );
}

function listOf(source: ImportPeer, value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value) || !value.every((link) => link !== null && typeof link === "object" && !Array.isArray(link)))
    throw new PeerFailure(`${PEER_NAMES[source]}'s API answered a page that is not a list of links.`);
  return value as Record<string, unknown>[];
}

const base = (url: string) => url.replace(/\/+$/, "");

/**
 * One page asked for under the outbound rules: 401 and 403 end the job ("Dub refused the API key"),
 * 429 waits for its Retry-After within a bound, a 5xx or a dropped connection is asked again a
 * few times; any other answer ends the job with its status. The key goes only in the header.
 */
async function askPeer(source: ImportPeer, url: string, headers: Record<string, string>, wait: Wait): Promise<unknown> {
  const name = PEER_NAMES[source];
  let failures = 0;
  let waited = 0;
  for (;;) {
    let answer;
    try {
      answer = await outboundRequest(url, {
        method: "GET",
        headers: { accept: "application/json", ...headers },
        timeoutMs: PAGE_TIMEOUT_MS,
        maxBytes: MAX_PAGE_BYTES,
        internalMessage: `${name}'s API address points inside this service's network, which an import may not reach.`,
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === INTERNAL_ADDRESS_CODE) throw new PeerFailure((error as Error).message);
      if (++failures > SERVER_RETRIES)
        throw new PeerFailure(
          `${name}'s API could not be reached (${reasonOf(error)}); the links read so far are imported: start the import again later to bring the rest.`,
        );
      await wait(RETRY_BASE_MS * 2 ** (failures - 1));
      continue;
    }
    const { status } = answer;
    if (status >= 200 && status < 300) {
      if (answer.truncated) throw new PeerFailure(`${name}'s API answered a page larger than a page of links can be.`);
      try {
        return await jsonValue(answer.body.toString("utf8"));
      } catch {
        throw new PeerFailure(`${name}'s API answered a page that is not JSON.`);
      }
    }
    if (status === 401 || status === 403)
      throw new PeerFailure(
        `${name} refused the API key: check that you copied all of it and that it may read links, then start the import again.`,
      );
    if (status === 429) {
      const seconds = retryAfterSeconds(answer.headers["retry-after"]);
      if (seconds > MAX_RETRY_AFTER_SECONDS || waited + seconds > RATE_LIMIT_WAIT_SECONDS)
        throw new PeerFailure(
          `${name} asked us to slow down for longer than an import waits; the links read so far are imported: start the import again later to bring the rest.`,
        );
      waited += seconds;
      await wait(seconds * 1000);
      continue;
    }
    if (status >= 500) {
      if (++failures > SERVER_RETRIES)
        throw new PeerFailure(
          `${name}'s API kept failing (HTTP ${status}); the links read so far are imported: start the import again later to bring the rest.`,
        );
      await wait(RETRY_BASE_MS * 2 ** (failures - 1));
      continue;
    }
    throw new PeerFailure(
      status >= 300 && status < 400
        ? `${name}'s API answered with a redirect, which an import does not follow.`
        : `${name}'s API refused the request (HTTP ${status}).`,
    );
  }
}

/** Retry-After in seconds, or as an HTTP date; without one (or unreadable), a few seconds. */
function retryAfterSeconds(header: string | string[] | undefined): number {
  const value = (Array.isArray(header) ? header[0] : header)?.trim() ?? "";
  if (/^\d+$/.test(value)) return Math.max(1, Number(value));
  const date = Date.parse(value);
  if (Number.isFinite(date)) return Math.max(1, Math.ceil((date - clock().now()) / 1000));
  return DEFAULT_RETRY_AFTER_SECONDS;
}

function reasonOf(error: unknown): string {
  if ((error as Error).name === "TimeoutError" || (error as Error).name === "AbortError") return "it did not answer in time";
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOTFOUND" ? "its name did not resolve" : "the connection failed";
}
