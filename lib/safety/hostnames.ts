export type HostnameClass =
  | { kind: "public" }
  | { kind: "metadata" }
  | { kind: "internal"; why: string };

const METADATA_HOSTNAMES: readonly string[] = [
  "metadata.google.internal",
  "metadata.goog",
  "instance-data.ec2.internal",
  "metadata.azure.com",
];

const INTERNAL_SUFFIXES: readonly string[] = [
  "localhost",
  "local",
  "internal",
  "localdomain",
  "home.arpa",
  "test",
  "invalid",
  "example",
  "onion",
];

/** Strips the DNS root dot(s): "example.com." and "example.com" are the same host. */
export function stripTrailingDots(hostname: string): string {
  return hostname.replace(/\.+$/, "");
}

/** True when `hostname` is `domain` or one of its subdomains. */
export function isWithinDomain(hostname: string, domain: string): boolean {
  return hostname === domain || hostname.endsWith(`.${domain}`);
}

/** Classifies a lower-case host name that is not an IP literal and has no trailing dot. */
export function classifyHostname(hostname: string): HostnameClass {
  if (METADATA_HOSTNAMES.some((name) => isWithinDomain(hostname, name))) return { kind: "metadata" };
  const suffix = INTERNAL_SUFFIXES.find((candidate) => isWithinDomain(hostname, candidate));
  if (suffix !== undefined) return { kind: "internal", why: `a local or reserved name (.${suffix})` };
  if (!hostname.includes(".")) return { kind: "internal", why: "a single-label name" };
  return { kind: "public" };
}
