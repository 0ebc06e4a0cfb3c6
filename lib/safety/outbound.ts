import { config } from "@/lib/config";
import ipaddr from "ipaddr.js";
import { Resolver } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { isIpLiteral } from "./addresses";
import { checkDestination, isInternalAddress, normaliseDestination } from "./destination";

/**
 * The service's own outbound requests (webhook deliveries, a preview filled from a destination, an
 * import paging through a peer's API) under one set of rules: public addresses only (or the
 * operator's own networks named in WEBHOOK_PRIVATE_NETWORKS, never a metadata endpoint), every
 * address a name has checked at the moment of connecting and the connection made to the checked
 * one (pinned: a name that points inside by then, DNS rebinding, is never connected to), no
 * redirect followed unless the caller asks, and then each hop checked again, a bound on the bytes
 * read and on the whole request's time.
 */

/** What WEBHOOK_PRIVATE_NETWORKS may open: the operator's own networks, never a metadata endpoint. */
const PRIVATE_RANGES: ReadonlySet<string> = new Set(["loopback", "private", "uniqueLocal", "carrierGradeNat"]);
const LOOKUP_TIMEOUT_MS = 3000;

/** The refusal's code on a connection whose name has an address the rules do not allow. */
export const INTERNAL_ADDRESS_CODE = "EREFUSED_INTERNAL";

/**
 * Whether a request may be sent to this address: public, or a loopback or private address inside
 * one of the networks the operator named in WEBHOOK_PRIVATE_NETWORKS (none by default).
 */
export function outboundAddressAllowed(address: string): boolean {
  const addressClass = isInternalAddress(address);
  if (!addressClass.internal) return true;
  return PRIVATE_RANGES.has(addressClass.range) && inOperatorNetwork(address);
}

function inOperatorNetwork(address: string): boolean {
  const parsed = ipaddr.process(address.replace(/^\[|\]$/g, ""));
  return config().WEBHOOK_PRIVATE_NETWORKS.some((network) => {
    const range = ipaddr.parseCIDR(network);
    return parsed.kind() === range[0].kind() && parsed.match(range);
  });
}

/** The URL's host without IPv6 brackets. */
export function bareHost(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, "");
}

export type OutboundVerdict =
  { ok: true; url: string } | { ok: false; reason: "destination"; message: string } | { ok: false; reason: "internal" };

/**
 * A URL through the destination rules of links (scheme, user info, control characters, internal
 * addresses and names in every encoding), then every address its name has now. With networks in
 * WEBHOOK_PRIVATE_NETWORKS, an internal name or a literal in them passes the destination rules.
 */
export async function vetOutboundUrl(raw: string): Promise<OutboundVerdict> {
  const decision = checkDestination(raw);
  if (!decision.ok && !allowedInternal(raw, decision.reason))
    return { ok: false, reason: "destination", message: decision.message };
  const url = decision.ok ? decision.url : normaliseDestination(raw);
  const hostname = bareHost(url);
  const addresses = isIpLiteral(hostname) ? [hostname] : await resolveAddresses(hostname);
  if (addresses.some((address) => !outboundAddressAllowed(address))) return { ok: false, reason: "internal" };
  return { ok: true, url };
}

function allowedInternal(raw: string, reason: string): boolean {
  if (config().WEBHOOK_PRIVATE_NETWORKS.length === 0) return false;
  if (reason === "internal_name") return true;
  if (reason !== "internal_address") return false;
  return outboundAddressAllowed(bareHost(normaliseDestination(raw)));
}

/**
 * The http agent's lookup for an outbound request: resolves the name itself (DNS_RESOLVER when
 * set) and refuses the connection when any address is not allowed, so the connection goes to an
 * address checked at that moment.
 */
export function outboundLookup(internalMessage: string): LookupFunction {
  return (hostname, options, callback) => {
    resolveAddresses(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(lookupError("ENOTFOUND", `${hostname} has no A or AAAA records.`), "", 4);
        if (addresses.some((address) => !outboundAddressAllowed(address)))
          return callback(lookupError(INTERNAL_ADDRESS_CODE, internalMessage), "", 4);
        const entries = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
        if (options.all)
          return (callback as (error: null, entries: { address: string; family: number }[]) => void)(null, entries);
        callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: Error) => callback(lookupError("ENOTFOUND", `The DNS lookup for ${hostname} failed: ${error.message}`), "", 4),
    );
  };
}

function lookupError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

async function resolveAddresses(hostname: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: 1 });
  const server = config().DNS_RESOLVER;
  if (server) resolver.setServers([server]);
  const family = (resolve: () => Promise<string[]>) => resolve().catch(() => [] as string[]);
  const [v4, v6] = await Promise.all([family(() => resolver.resolve4(hostname)), family(() => resolver.resolve6(hostname))]);
  return [...v4, ...v6];
}

export type OutboundRequest = {
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  /** The whole request, connection to last byte read. */
  timeoutMs: number;
  /** What is read of the answer; the rest is dropped and `truncated` says so. */
  maxBytes: number;
  /** The refusal's sentence when the name has an address the rules do not allow. */
  internalMessage: string;
};

export type OutboundAnswer = { status: number; headers: http.IncomingHttpHeaders; body: Buffer; truncated: boolean };

/**
 * One request under the rules above; a redirect is an answer like any other (never followed here).
 * Rejects with the connection's error: a refused address carries INTERNAL_ADDRESS_CODE, a time
 * past `timeoutMs` is a TimeoutError.
 */
export function outboundRequest(url: string, request: OutboundRequest): Promise<OutboundAnswer> {
  const host = bareHost(url);
  if (isIpLiteral(host) && !outboundAddressAllowed(host))
    return Promise.reject(lookupError(INTERNAL_ADDRESS_CODE, request.internalMessage));
  const transport = url.startsWith("https:") ? https : http;
  return new Promise((resolve, reject) => {
    const sent = transport.request(
      url,
      {
        method: request.method,
        agent: false,
        lookup: outboundLookup(request.internalMessage),
        signal: AbortSignal.timeout(request.timeoutMs),
        headers: {
          ...request.headers,
          ...(request.body !== undefined && { "content-length": String(Buffer.byteLength(request.body)) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let read = 0;
        let truncated = false;
        const finish = () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), truncated });
        response.on("data", (chunk: Buffer) => {
          const room = request.maxBytes - read;
          if (chunk.length >= room) {
            if (room > 0) chunks.push(chunk.subarray(0, room));
            read = request.maxBytes;
            truncated = true;
            response.destroy();
            return;
          }
          chunks.push(chunk);
          read += chunk.length;
        });
        response.on("close", finish);
        response.on("error", finish);
      },
    );
    sent.on("error", reject);
    sent.end(request.body);
  });
}

/** At most this many redirects are followed where a caller follows them (each checked as the first request was). */
export const MAX_OUTBOUND_REDIRECTS = 3;

/**
 * A GET that follows up to MAX_OUTBOUND_REDIRECTS redirects, each new address through
 * vetOutboundUrl and the pinned lookup again, so a redirect never leads inside; the answer of the
 * last one. Rejects with a sentence (an Error) for an address refused or too many redirects.
 */
export async function outboundGet(
  url: string,
  request: Omit<OutboundRequest, "method" | "body">,
): Promise<OutboundAnswer & { url: string }> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const answer = await outboundRequest(current, { ...request, method: "GET" });
    const location = answer.headers.location;
    if (answer.status < 300 || answer.status >= 400 || !location) return { ...answer, url: current };
    if (hop >= MAX_OUTBOUND_REDIRECTS) throw new Error(`The page redirected more than ${MAX_OUTBOUND_REDIRECTS} times.`);
    const next = new URL(location, current).toString();
    const verdict = await vetOutboundUrl(next);
    if (!verdict.ok && verdict.reason === "internal") throw lookupError(INTERNAL_ADDRESS_CODE, request.internalMessage);
    if (!verdict.ok) throw new Error(`The page redirected to an address that may not be opened: ${verdict.message}`);
    current = verdict.url;
  }
}
