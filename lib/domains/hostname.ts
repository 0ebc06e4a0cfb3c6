import { DomainError } from "@/lib/http/errors";
import { isIpLiteral } from "@/lib/safety/addresses";
import { classifyHostname, isWithinDomain, stripTrailingDots } from "@/lib/safety/hostnames";
import { parse as parsePublicSuffix } from "tldts";

/** A customer hostname as stored, and whether it is a zone apex (example.com), which cannot be a CNAME. */
export type CustomHostname = { hostname: string; apex: boolean };

const MAX_HOSTNAME_LENGTH = 253;
/** Letters, digits and inner hyphens (A-labels included): what a certificate authority issues for. */
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const NOT_A_BARE_HOSTNAME = /[/?#@\\\s]|:\/\//;

/**
 * Parses and normalises a hostname the way destinations are (lower case, IDN as A-label, no
 * trailing dot, no port) and refuses what cannot be a customer's domain: an IP literal, a single
 * label, a reserved or internal name, a public suffix, a name under the service's own hosts.
 */
export function parseCustomHostname(input: string, ownHosts: readonly string[]): CustomHostname {
  const trimmed = input.trim();
  if (trimmed === "" || NOT_A_BARE_HOSTNAME.test(trimmed))
    throw refuse(`"${clip(trimmed)}" is not a hostname: send the name alone, such as go.example.com, without a scheme or path.`);
  const parsed = URL.parse(`http://${trimmed}`);
  if (parsed === null || parsed.username || parsed.password) throw refuse(`"${clip(trimmed)}" is not a valid hostname.`);
  const hostname = stripTrailingDots(parsed.hostname);
  if (isIpLiteral(hostname))
    throw refuse(`${clip(hostname)} is an IP address; a custom domain must be a name, such as go.example.com.`);
  if (hostname.length > MAX_HOSTNAME_LENGTH || !hostname.split(".").every((label) => LDH_LABEL.test(label))) {
    throw refuse(
      `${clip(hostname)} is not a valid hostname: each label may use letters, digits and inner hyphens, at most 63 characters, 253 in all.`,
    );
  }
  const kind = classifyHostname(hostname);
  if (kind.kind === "metadata") throw refuse(`${hostname} is a cloud metadata name and cannot be a custom domain.`);
  if (kind.kind === "internal") throw refuse(`${hostname} is ${kind.why}, which cannot be a custom domain on the public web.`);
  const own = ownHosts.find((host) => isWithinDomain(hostname, host));
  if (own !== undefined) throw refuse(`${hostname} is this service's own host (${own}) or a name under it.`);
  const suffix = parsePublicSuffix(hostname);
  if (suffix.domain === null)
    throw refuse(`${hostname} is a public suffix, under which anyone can register names; add a domain you own under it.`);
  return { hostname, apex: isApexHostname(hostname) };
}

function refuse(message: string): DomainError {
  return new DomainError("invalid_request", message);
}

function clip(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/** An apex (a registrable domain such as example.com or example.co.uk) cannot hold a CNAME. */
export function isApexHostname(hostname: string): boolean {
  return parsePublicSuffix(hostname).domain === hostname;
}
