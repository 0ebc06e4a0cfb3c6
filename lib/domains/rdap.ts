import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import { INTERNAL_ADDRESS_CODE, outboundGet, vetOutboundUrl } from "@/lib/safety/outbound";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { registrableDomain } from "./lapse";
import shippedBootstrap from "./rdap-bootstrap.json";

/**
 * A domain's registration expiry over RDAP (RFC 9083), the registry found through IANA's bootstrap
 * file for DNS (RFC 9224): the snapshot shipped in rdap-bootstrap.json (`npm run rdap:refresh`
 * replaces it with IANA's whole file), or the operator's RDAP_BOOTSTRAP_FILE. Every request goes
 * through the service's outbound rules (lib/safety/outbound.ts), as webhooks do: public addresses
 * only unless the operator named a network in WEBHOOK_PRIVATE_NETWORKS, the lookup pinned,
 * redirects each checked, the bytes and the time bounded.
 */

/** RFC 9224 §4: `services` pairs a list of labels (TLDs) with the base URLs of their RDAP service. */
const bootstrapSchema = z.object({
  version: z.string(),
  publication: z.string(),
  description: z.string().optional(),
  services: z.array(z.tuple([z.array(z.string()), z.array(z.url({ protocol: /^https?$/ })).min(1)])),
});

export type RdapBootstrap = z.infer<typeof bootstrapSchema>;

/** An RDAP answer is read up to this much: a domain object is a few kilobytes. */
const ANSWER_BYTES = 256 * 1024;
/** The whole lookup, connection to last byte, each hop of a redirect included. */
const LOOKUP_TIMEOUT_MS = 10_000;
const INTERNAL_REGISTRY = "The RDAP server's address is internal or private, so it is not asked.";

/** The bootstrap of each file read (undefined: the shipped snapshot), read once per process. */
const loadedBootstraps = processSingleton("rdapBootstraps", () => new Map<string | undefined, RdapBootstrap>());

/** The bootstrap in force: RDAP_BOOTSTRAP_FILE when set, else the shipped snapshot. */
export function rdapBootstrap(): RdapBootstrap {
  const file = config().RDAP_BOOTSTRAP_FILE;
  const loaded = loadedBootstraps.get();
  let bootstrap = loaded.get(file);
  if (!bootstrap) loaded.set(file, (bootstrap = parseBootstrap(file ? readBootstrapFile(file) : shippedBootstrap)));
  return bootstrap;
}

function readBootstrapFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`RDAP_BOOTSTRAP_FILE (${file}) could not be read as JSON: ${(error as Error).message}`);
  }
}

/** Throws a sentence when the document is not in the bootstrap format. */
export function parseBootstrap(document: unknown): RdapBootstrap {
  const parsed = bootstrapSchema.safeParse(document);
  if (!parsed.success)
    throw new Error(
      `The RDAP bootstrap is not in IANA's dns.json format (RFC 9224): ${parsed.error.issues[0]?.path.join(".") || "the document"} ` +
        `${parsed.error.issues[0]?.message ?? "is wrong"}.`,
    );
  return parsed.data;
}

/**
 * The base URL of the RDAP service for a domain name: the entry whose labels match the most of the
 * name's last labels (RFC 9224 §4), its first HTTPS URL (else its first). null when the bootstrap
 * has no entry (the TLD offers no RDAP, or the snapshot does not know it).
 */
export function rdapBaseFor(name: string, bootstrap: RdapBootstrap = rdapBootstrap()): string | null {
  const labels = name.toLowerCase().split(".");
  let best: { length: number; urls: string[] } | null = null;
  for (const [entries, urls] of bootstrap.services) {
    for (const entry of entries) {
      const entryLabels = entry.toLowerCase().split(".");
      if (entryLabels.length > labels.length || (best && entryLabels.length <= best.length)) continue;
      if (labels.slice(-entryLabels.length).join(".") === entryLabels.join(".")) best = { length: entryLabels.length, urls };
    }
  }
  if (!best) return null;
  const base = best.urls.find((url) => url.startsWith("https:")) ?? best.urls[0]!;
  return base.endsWith("/") ? base : `${base}/`;
}

export type RegistrationExpiry = { domain: string | null; expiresAt: Date | null; problem: string | null };

/**
 * When the registration of the hostname's registrable domain lapses, as its registry's RDAP server
 * says (the domain object's `expiration` event). Never throws: what went wrong is a sentence.
 */
export async function lookUpRegistrationExpiry(hostname: string): Promise<RegistrationExpiry> {
  const domain = registrableDomain(hostname);
  if (!domain) return { domain, expiresAt: null, problem: `${hostname} has no registrable domain to look up.` };
  const unknown = (problem: string): RegistrationExpiry => ({ domain, expiresAt: null, problem });
  let base: string | null;
  try {
    base = rdapBaseFor(domain);
  } catch (error) {
    return unknown((error as Error).message);
  }
  if (!base) return unknown(`The registry of ${domain} publishes no RDAP service that this deployment knows of.`);
  const verdict = await vetOutboundUrl(new URL(`domain/${encodeURIComponent(domain)}`, base).toString());
  if (!verdict.ok) return unknown(verdict.reason === "internal" ? INTERNAL_REGISTRY : registrySentence(verdict.message));
  try {
    const answer = await outboundGet(verdict.url, {
      headers: { accept: "application/rdap+json, application/json" },
      timeoutMs: LOOKUP_TIMEOUT_MS,
      maxBytes: ANSWER_BYTES,
      internalMessage: INTERNAL_REGISTRY,
    });
    if (answer.status === 404) return unknown(`The registry's RDAP server has no record of ${domain}.`);
    if (answer.status !== 200) return unknown(`The registry's RDAP server answered ${answer.status} for ${domain}.`);
    if (answer.truncated) return unknown(`The registry's RDAP answer for ${domain} was larger than ${ANSWER_BYTES / 1024} KiB.`);
    const expiresAt = expirationOf(JSON.parse(answer.body.toString("utf8")));
    return expiresAt
      ? { domain, expiresAt, problem: null }
      : unknown(`The registry's RDAP answer for ${domain} has no expiry date.`);
  } catch (error) {
    return unknown(lookupProblem(domain, error));
  }
}

/** RFC 9083 §4.5: the `events` member's entry with eventAction "expiration", its eventDate (RFC 3339). */
export function expirationOf(object: unknown): Date | null {
  const events = (object as { events?: unknown } | null)?.events;
  if (!Array.isArray(events)) return null;
  for (const event of events as { eventAction?: unknown; eventDate?: unknown }[]) {
    if (event?.eventAction !== "expiration" || typeof event.eventDate !== "string") continue;
    const at = Date.parse(event.eventDate);
    if (Number.isFinite(at)) return new Date(at);
  }
  return null;
}

/** A destination rule's refusal, said of the RDAP server. */
function registrySentence(destinationMessage: string): string {
  return destinationMessage
    .replace(/^The destination/, "The RDAP server's address")
    .replace(/short links may not redirect to/, "the service does not send requests to");
}

function lookupProblem(domain: string, error: unknown): string {
  if (error instanceof SyntaxError) return `The registry's RDAP answer for ${domain} is not JSON.`;
  if (!(error instanceof Error)) return `The registry's RDAP server could not be asked about ${domain}.`;
  const code = "code" in error ? String(error.code) : "";
  if (error.name === "TimeoutError" || error.name === "AbortError")
    return `The registry's RDAP server did not answer within ${LOOKUP_TIMEOUT_MS / 1000} seconds.`;
  if (code === INTERNAL_ADDRESS_CODE) return INTERNAL_REGISTRY;
  return `The registry's RDAP server could not be asked about ${domain} (${code || error.message}).`;
}
