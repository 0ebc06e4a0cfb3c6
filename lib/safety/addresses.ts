import ipaddr from "ipaddr.js";

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * `range` is the ipaddr.js range name of the deciding address ("unicast" when public), or one of
 * our own names: "metadata", "ipv4Compatible", "invalid".
 * `description` is a phrase for messages, e.g. "a private network address (10.0.0.0/8)".
 */
export type AddressClass = { internal: boolean; range: string; description: string };

type RangeDescription = { label: string; cidrs: readonly string[] };

// Labels and CIDRs for messages only; the decision itself always comes from ipaddr.js range().
const RANGE_DESCRIPTIONS: Readonly<Record<string, RangeDescription>> = {
  unspecified: { label: "an unspecified address", cidrs: ["0.0.0.0/8", "::/128"] },
  broadcast: { label: "the broadcast address", cidrs: ["255.255.255.255/32"] },
  multicast: { label: "a multicast address", cidrs: ["224.0.0.0/4", "ff00::/8"] },
  linkLocal: { label: "a link-local address", cidrs: ["169.254.0.0/16", "fe80::/10"] },
  loopback: { label: "a loopback address", cidrs: ["127.0.0.0/8", "::1/128"] },
  carrierGradeNat: { label: "a carrier-grade NAT address", cidrs: ["100.64.0.0/10"] },
  private: {
    label: "a private network address",
    cidrs: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"],
  },
  reserved: {
    label: "a reserved or documentation address",
    cidrs: [
      "192.0.0.0/24",
      "192.0.2.0/24",
      "192.88.99.0/24",
      "198.18.0.0/15",
      "198.51.100.0/24",
      "203.0.113.0/24",
      "240.0.0.0/4",
      "2001::/23",
      "2001:db8::/32",
      "3fff::/20",
    ],
  },
  as112: { label: "an AS112 sink address", cidrs: ["192.175.48.0/24", "192.31.196.0/24"] },
  amt: { label: "an AMT relay address", cidrs: ["192.52.193.0/24", "2001:3::/32"] },
  uniqueLocal: { label: "a unique-local (private) IPv6 address", cidrs: ["fc00::/7"] },
  deprecatedSiteLocal: { label: "a site-local IPv6 address", cidrs: ["fec0::/10"] },
  ipv4Mapped: { label: "an IPv4-mapped IPv6 address", cidrs: ["::ffff:0:0/96"] },
  rfc6145: { label: "an IPv4-translated IPv6 address", cidrs: ["::ffff:0:0:0/96"] },
  rfc6052: { label: "a NAT64 address", cidrs: ["64:ff9b::/96", "64:ff9b:1::/48"] },
  "6to4": { label: "a 6to4 address", cidrs: ["2002::/16"] },
  teredo: { label: "a Teredo address", cidrs: ["2001::/32"] },
  ipv4Compatible: { label: "an IPv4-compatible IPv6 address", cidrs: ["::/96"] },
  discard: { label: "a discard-only IPv6 address", cidrs: ["100::/64"] },
  benchmarking: { label: "a benchmarking address", cidrs: ["2001:2::/48"] },
  as112v6: { label: "an AS112 sink address", cidrs: ["2001:4:112::/48", "2620:4f:8000::/48"] },
  deprecatedOrchid: { label: "an ORCHID address", cidrs: ["2001:10::/28"] },
  orchid2: { label: "an ORCHIDv2 address", cidrs: ["2001:20::/28"] },
  droneRemoteIdProtocolEntityTags: { label: "a DRIP entity tag address", cidrs: ["2001:30::/28"] },
  segmentRouting: { label: "a segment-routing IPv6 address", cidrs: ["5f00::/16"] },
};

const METADATA_ADDRESSES: readonly string[] = [
  "169.254.169.254",
  "100.100.100.200",
  // Azure's WireServer: public unicast, yet Azure tells VMs to treat it like the metadata service.
  "168.63.129.16",
  "fd00:ec2::254",
].map((address) => ipaddr.parse(address).toNormalizedString());

const PUBLIC: AddressClass = { internal: false, range: "unicast", description: "a public address" };

/** True for an IPv4 or IPv6 literal; IPv6 may carry the URL brackets. */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(withoutBrackets(host));
}

/** Classifies an IP literal (brackets allowed). Anything that is not public unicast is internal. */
export function isInternalAddress(ip: string): AddressClass {
  const literal = withoutBrackets(ip);
  if (!ipaddr.isValid(literal)) {
    return { internal: true, range: "invalid", description: `an unparsable address (${literal})` };
  }
  const address = ipaddr.parse(literal);
  return address.kind() === "ipv4" ? classifyIPv4(address as IPv4) : classifyIPv6(address as IPv6);
}

function withoutBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

function classifyIPv4(address: IPv4): AddressClass {
  if (isMetadataAddress(address)) return metadataClass(address);
  const range = address.range();
  return range === "unicast" ? PUBLIC : internalClass(range, address);
}

function classifyIPv6(address: IPv6): AddressClass {
  if (isMetadataAddress(address)) return metadataClass(address);
  const ipaddrRange = address.range();
  const range = ipaddrRange === "unicast" && isIPv4Compatible(address) ? "ipv4Compatible" : ipaddrRange;
  if (range === "unicast") return PUBLIC;
  const embedded = embeddedIPv4(address, range);
  if (embedded === null) return internalClass(range, address);
  const inner = classifyIPv4(embedded);
  if (!inner.internal) return internalClass(range, address);
  return {
    internal: true,
    range: inner.range,
    description: `${inner.description} wrapped in ${describeRange(range, address)}`,
  };
}

function isMetadataAddress(address: IPv4 | IPv6): boolean {
  return METADATA_ADDRESSES.includes(address.toNormalizedString());
}

function metadataClass(address: IPv4 | IPv6): AddressClass {
  return {
    internal: true,
    range: "metadata",
    description: `a cloud metadata endpoint (${address.toString()})`,
  };
}

function internalClass(range: string, address: IPv4 | IPv6): AddressClass {
  return { internal: true, range, description: describeRange(range, address) };
}

// ::a.b.c.d (RFC 4291, deprecated); ipaddr.js calls these unicast, except :: and ::1.
function isIPv4Compatible(address: IPv6): boolean {
  return address.parts.slice(0, 6).every((part) => part === 0);
}

/** The IPv4 address a transition form carries, or null when the form carries none. */
function embeddedIPv4(address: IPv6, range: string): IPv4 | null {
  const [, p1 = 0, p2 = 0, , , , p6 = 0, p7 = 0] = address.parts;
  switch (range) {
    case "ipv4Mapped":
    case "rfc6145":
    case "rfc6052":
    case "ipv4Compatible":
      return ipv4FromParts(p6, p7);
    case "6to4":
      return ipv4FromParts(p1, p2);
    case "teredo":
      // The client address sits in the last 32 bits, bit-inverted (RFC 4380).
      return ipv4FromParts(~p6 & 0xffff, ~p7 & 0xffff);
    default:
      return null;
  }
}

function ipv4FromParts(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function describeRange(range: string, address: IPv4 | IPv6): string {
  const description = RANGE_DESCRIPTIONS[range];
  if (description === undefined) return `a special-purpose address (${range})`;
  const cidr = description.cidrs.find((candidate) => containsAddress(candidate, address));
  return cidr === undefined ? description.label : `${description.label} (${cidr})`;
}

function containsAddress(cidr: string, address: IPv4 | IPv6): boolean {
  const [network, prefixLength] = ipaddr.parseCIDR(cidr);
  return network.kind() === address.kind() && address.match(network, prefixLength);
}
