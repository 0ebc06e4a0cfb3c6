import { isInternalAddress, isIpLiteral } from "./addresses";
import { classifyHostname, stripTrailingDots } from "./hostnames";

export { isInternalAddress } from "./addresses";
export type { AddressClass } from "./addresses";

export type RefusalReason =
  | "invalid_url"
  | "scheme"
  | "userinfo"
  | "control_chars"
  | "port"
  | "too_long"
  | "internal_address"
  | "internal_name"
  | "metadata_endpoint";

export type DestinationDecision =
  { ok: true; url: string; hostname: string } | { ok: false; reason: RefusalReason; message: string };

type Refusal = Extract<DestinationDecision, { ok: false }>;

export const MAX_DESTINATION_LENGTH = 2048;

const ALLOWED_PROTOCOLS: ReadonlySet<string> = new Set(["http:", "https:"]);
// C0 controls, DEL and C1 controls: WHATWG silently deletes tab/CR/LF, so "exa\tmple.com" would
// become "example.com" behind the author's back.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const PERCENT_ESCAPE = /%([0-9A-Fa-f]{2})/g;
const LONE_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const UNRESERVED_CHARACTER = /^[A-Za-z0-9\-._~]$/;

/**
 * Decides whether a short link may redirect to `input`. Pure and synchronous (no DNS).
 * On success `url` is the normalised destination to store and `hostname` its host as WHATWG
 * serialises it (IPv6 keeps its brackets).
 */
export function checkDestination(input: string): DestinationDecision {
  const parsed = parseHttpUrl(input);
  if (!parsed.ok) return parsed;
  return checkNormalisedUrl(new URL(normaliseParsedUrl(parsed.url)));
}

/**
 * The stored form of a destination (security.md §2.7). Idempotent.
 * Throws a TypeError when `input` is not an http(s) URL that can be read unambiguously
 * (unparsable, another scheme, raw control characters or backslashes).
 */
export function normaliseDestination(input: string): string {
  const parsed = parseHttpUrl(input);
  if (!parsed.ok) throw new TypeError(parsed.message);
  return normaliseParsedUrl(parsed.url);
}

function parseHttpUrl(input: string): { ok: true; url: URL } | Refusal {
  if (CONTROL_CHARACTER.test(input)) return refuseControlCharacter();
  if (input.includes("\\")) return refuseBackslash();
  const url = URL.parse(input);
  if (url === null) return refuseInvalidUrl();
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) return refuseScheme(url.protocol);
  if (hasEmptyLabel(stripTrailingDots(url.hostname))) return refuseEmptyLabel(url.hostname);
  return { ok: true, url };
}

function hasEmptyLabel(hostname: string): boolean {
  return hostname.split(".").includes("");
}

function normaliseParsedUrl(parsed: URL): string {
  const url = new URL(parsed.href);
  const hostname = stripTrailingDots(url.hostname);
  if (hostname !== url.hostname) url.hostname = hostname;
  url.pathname = normalisePercentEscapes(url.pathname);
  // Assigning "" also drops an empty trailing "?" or "#".
  url.search = normalisePercentEscapes(url.search);
  url.hash = normalisePercentEscapes(url.hash);
  return url.href;
}

/** Upper-cases percent-escape hex and decodes escapes of unreserved characters. */
function normalisePercentEscapes(component: string): string {
  // With a stray "%" about, decoding could forge a new escape ("%%414" → "%A4"), so keep escapes.
  const mayDecode = !LONE_PERCENT.test(component);
  return component.replace(PERCENT_ESCAPE, (_escape, hex: string) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    return mayDecode && UNRESERVED_CHARACTER.test(character) ? character : `%${hex.toUpperCase()}`;
  });
}

function checkNormalisedUrl(url: URL): DestinationDecision {
  if (url.username !== "" || url.password !== "") return refuseUserinfo();
  if (url.port === "0") return refusePortZero();
  const hostRefusal = checkHost(url.hostname);
  if (hostRefusal !== null) return hostRefusal;
  if (url.href.length > MAX_DESTINATION_LENGTH) return refuseTooLong(url.href.length);
  return { ok: true, url: url.href, hostname: url.hostname };
}

function checkHost(hostname: string): Refusal | null {
  if (isIpLiteral(hostname)) return checkAddress(hostname);
  const nameClass = classifyHostname(hostname);
  switch (nameClass.kind) {
    case "metadata":
      return refuseMetadataEndpoint(hostname);
    case "internal":
      return refuseInternalName(hostname, nameClass.why);
    case "public":
      return null;
  }
}

function checkAddress(hostname: string): Refusal | null {
  const addressClass = isInternalAddress(hostname);
  if (!addressClass.internal) return null;
  if (addressClass.range === "metadata") return refuseMetadataEndpoint(hostname);
  return refuseInternalAddress(addressClass.description);
}

function refuse(reason: Refusal["reason"], message: string): Refusal {
  return { ok: false, reason, message };
}

function refuseControlCharacter(): Refusal {
  return refuse(
    "control_chars",
    "The destination contains a control character such as a tab or line break, which browsers silently remove.",
  );
}

function refuseBackslash(): Refusal {
  return refuse(
    "control_chars",
    "The destination contains a backslash, which browsers read as a slash while other parsers do not.",
  );
}

function refuseInvalidUrl(): Refusal {
  return refuse("invalid_url", "The destination is not a valid absolute URL.");
}

function refuseEmptyLabel(hostname: string): Refusal {
  return refuse("invalid_url", `The destination host "${hostname}" has an empty label.`);
}

function refuseScheme(protocol: string): Refusal {
  return refuse("scheme", `The destination uses the "${protocol.slice(0, -1)}" scheme; only http and https links are allowed.`);
}

function refuseUserinfo(): Refusal {
  return refuse("userinfo", "The destination contains a user name or password before the host, which short links may not carry.");
}

function refusePortZero(): Refusal {
  return refuse("port", "The destination uses port 0, which no server can listen on.");
}

function refuseTooLong(length: number): Refusal {
  return refuse(
    "too_long",
    `The destination is ${length} characters long after normalisation; the limit is ${MAX_DESTINATION_LENGTH}.`,
  );
}

function refuseInternalAddress(description: string): Refusal {
  return refuse("internal_address", `The destination points at ${description}, which short links may not redirect to.`);
}

function refuseInternalName(hostname: string, why: string): Refusal {
  return refuse("internal_name", `The destination host "${hostname}" is ${why}, which short links may not redirect to.`);
}

function refuseMetadataEndpoint(hostname: string): Refusal {
  return refuse(
    "metadata_endpoint",
    `The destination points at a cloud metadata endpoint (${hostname}), which short links may not redirect to.`,
  );
}
