import { parse as parsePublicSuffix } from "tldts";

export type HostnameClass = { kind: "public" } | { kind: "metadata" } | { kind: "internal"; why: string };

const METADATA_HOSTNAMES: readonly string[] = [
  "metadata.google.internal",
  "metadata.goog",
  "instance-data.ec2.internal",
  "metadata.azure.com",
];

/**
 * Names that never lead to the public web: special-use names (RFC 6761: localhost, test, invalid,
 * example; RFC 6762: local; RFC 7686: onion; RFC 9476: alt), the infrastructure domain arpa
 * (home.arpa of RFC 8375, in-addr.arpa and ip6.arpa reverse names, ipv4only.arpa), and the
 * private-use suffixes networks use in practice (RFC 6762 appendix G: intranet, internal,
 * private, corp, home, lan; plus localdomain, box of home routers, mail, svc of Kubernetes).
 */
const INTERNAL_SUFFIXES: readonly string[] = [
  "localhost",
  "local",
  "localdomain",
  "test",
  "invalid",
  "example",
  "onion",
  "alt",
  "arpa",
  "internal",
  "intranet",
  "private",
  "corp",
  "home",
  "lan",
  "box",
  "mail",
  "svc",
];

/** Strips the DNS root dot(s): "example.com." and "example.com" are the same host. */
export function stripTrailingDots(hostname: string): string {
  return hostname.replace(/\.+$/, "");
}

/** True when `hostname` is `domain` or one of its subdomains. */
export function isWithinDomain(hostname: string, domain: string): boolean {
  return hostname === domain || hostname.endsWith(`.${domain}`);
}

/**
 * Classifies a lower-case host name that is not an IP literal and has no trailing dot. Beyond the
 * names listed above, a name whose top-level label is outside the ICANN section of the Public
 * Suffix List (tldts ships it) is private-use wherever it resolves (.workgroup, .kube, .router…):
 * the class is closed, not listed.
 */
export function classifyHostname(hostname: string): HostnameClass {
  if (METADATA_HOSTNAMES.some((name) => isWithinDomain(hostname, name))) return { kind: "metadata" };
  const suffix = INTERNAL_SUFFIXES.find((candidate) => isWithinDomain(hostname, candidate));
  if (suffix !== undefined) return { kind: "internal", why: `a local or reserved name (.${suffix})` };
  if (!hostname.includes(".")) return { kind: "internal", why: "a single-label name" };
  if (!parsePublicSuffix(hostname, { allowPrivateDomains: false }).isIcann) {
    return {
      kind: "internal",
      why: `under .${hostname.slice(hostname.lastIndexOf(".") + 1)}, which is no top-level domain of the public internet`,
    };
  }
  return { kind: "public" };
}
