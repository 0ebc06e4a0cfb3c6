import { stripTrailingDots } from "@/lib/safety/hostnames";
import ipaddr from "ipaddr.js";
import type { CaaRecord } from "node:dns";
import { parse as parsePublicSuffix } from "tldts";
import { describeLookupFailure, type DomainResolver, isAbsent, type Lookup } from "./dns-lookup";
import { ownershipRecord, type RoutingTarget } from "./records";

export type DnsCheckInput = { hostname: string; apex: boolean; token: string; target: RoutingTarget; issuers: readonly string[] };

/**
 * What the customer's DNS says right now, each part with what is wrong in words. ownership: the
 * TXT record holds this domain's token; routing: visitors of the hostname reach the short host;
 * certificate: no CAA record forbids our certificate authority.
 */
export type DnsFindings = { ownership: Part; routing: Part; certificate: Part };

export type Part = { ok: boolean; problems: string[] };

export async function checkDns(input: DnsCheckInput, resolver: DomainResolver): Promise<DnsFindings> {
  const [ownership, routing, certificate] = await Promise.all([
    checkOwnership(input, resolver),
    input.apex ? checkApexRouting(input, resolver) : checkSubdomainRouting(input, resolver),
    checkCaa(input.hostname, input.issuers, resolver),
  ]);
  return { ownership, routing, certificate };
}

async function checkOwnership({ hostname, token }: DnsCheckInput, resolver: DomainResolver): Promise<Part> {
  const expected = ownershipRecord(hostname, token);
  const found = await resolver.txt(expected.name);
  if (isAbsent(found)) return fail(`The TXT record ${expected.name} is missing: add it with the value ${expected.value}.`);
  if (!found.ok) return fail(describeLookupFailure(expected.name, found.code));
  if (found.values.includes(expected.value)) return PASS;
  return fail(
    `The TXT record ${expected.name} does not hold this domain's token (it has ${quoteList(found.values)}): set it to ${expected.value}.`,
  );
}

async function checkSubdomainRouting({ hostname, target }: DnsCheckInput, resolver: DomainResolver): Promise<Part> {
  const cname = await resolver.cname(hostname);
  if (cname.ok && cname.values.length > 0) {
    const pointsTo = cname.values.map((value) => stripTrailingDots(value.toLowerCase()));
    if (pointsTo.includes(target.shortHost)) return PASS;
    return fail(`${hostname} is a CNAME to ${pointsTo.join(", ")}, not to ${target.shortHost}: point it at ${target.shortHost}.`);
  }
  if (!cname.ok && !isAbsent(cname)) return fail(describeLookupFailure(hostname, cname.code));
  // A provider that flattens CNAMEs (or proxies) answers with addresses: ours are as good as the CNAME.
  const addresses = await resolver.a(hostname);
  const found = addresses.ok ? addresses.values : [];
  if (found.length > 0 && target.ipv4.length > 0 && found.every((address) => sameAddressIn(address, target.ipv4))) return PASS;
  if (found.length > 0)
    return fail(
      `${hostname} has A records (${found.join(", ")}) instead of a CNAME to ${target.shortHost}: replace them with the CNAME.`,
    );
  return fail(`${hostname} has no CNAME record: add a CNAME to ${target.shortHost}.`);
}

async function checkApexRouting({ hostname, target }: DnsCheckInput, resolver: DomainResolver): Promise<Part> {
  const [v4, v6] = await Promise.all([resolver.a(hostname), resolver.aaaa(hostname)]);
  const problems = [...familyProblems(hostname, "A", v4, target.ipv4), ...familyProblems(hostname, "AAAA", v6, target.ipv6)];
  return { ok: problems.length === 0, problems };
}

/** Every address of the family must be ours (a stray one sends some visitors elsewhere); ours must be there when configured. */
function familyProblems(hostname: string, type: "A" | "AAAA", found: Lookup<string>, ours: readonly string[]): string[] {
  if (!found.ok && !isAbsent(found)) return [describeLookupFailure(hostname, found.code)];
  const addresses = found.ok ? found.values : [];
  const foreign = addresses.filter((address) => !sameAddressIn(address, ours));
  if (foreign.length > 0) {
    const fix = ours.length > 0 ? `replace them with ${ours.join(", ")}` : "remove them";
    return [`${hostname} has ${type} records pointing elsewhere (${foreign.join(", ")}): ${fix}.`];
  }
  if (ours.length > 0 && addresses.length === 0) return [`${hostname} has no ${type} record: add ${type} ${ours.join(", ")}.`];
  return [];
}

/**
 * RFC 8659: the relevant CAA set is the first one found climbing from the hostname towards its
 * registrable domain. When it holds issue properties, one of them must name one of our
 * certificate authorities, or no certificate can be issued.
 */
async function checkCaa(hostname: string, issuers: readonly string[], resolver: DomainResolver): Promise<Part> {
  for (const name of namesToClimb(hostname)) {
    const found = await resolver.caa(name);
    if (isAbsent(found)) continue;
    if (!found.ok)
      return fail(
        `${describeLookupFailure(`the CAA records of ${name}`, found.code)} Certificate authorities refuse to issue until it answers.`,
      );
    return judgeCaaSet(hostname, name, found.values, issuers);
  }
  return PASS;
}

function judgeCaaSet(hostname: string, name: string, records: CaaRecord[], issuers: readonly string[]): Part {
  const unknownCritical = records.find(
    (record) => record.critical & 128 && !("issue" in record || "issuewild" in record || "iodef" in record),
  );
  if (unknownCritical)
    return fail(
      `A CAA record on ${name} carries a critical property certificate authorities do not understand, ` +
        `so none will issue a certificate for ${hostname}: remove it.`,
    );
  const allowed = records.flatMap((record) =>
    record.issue === undefined ? [] : [record.issue.split(";")[0]!.trim().toLowerCase()],
  );
  if (allowed.length === 0 || allowed.some((issuer) => issuers.includes(issuer))) return PASS;
  const named = allowed.filter(Boolean);
  const whom = named.length > 0 ? `only ${named.join(", ")}` : "no certificate authority";
  return fail(
    `A CAA record on ${name} allows ${whom} to issue certificates, so ${hostname} cannot get one ` +
      `from ${issuers.join(" or ")}: add the record ${name} CAA 0 issue "${issuers[0]}".`,
  );
}

/** The hostname and its parents down to the registrable domain (public suffixes hold no CAA of the customer's). */
function namesToClimb(hostname: string): string[] {
  const registrable = parsePublicSuffix(hostname).domain ?? hostname;
  const labels = hostname.split(".");
  const names: string[] = [];
  for (let index = 0; index < labels.length; index += 1) {
    const name = labels.slice(index).join(".");
    names.push(name);
    if (name === registrable) break;
  }
  return names;
}

function sameAddressIn(address: string, list: readonly string[]): boolean {
  const normalised = normaliseAddress(address);
  return list.some((candidate) => normaliseAddress(candidate) === normalised);
}

function normaliseAddress(address: string): string {
  return ipaddr.isValid(address) ? ipaddr.process(address).toNormalizedString() : address;
}

function quoteList(values: string[]): string {
  const shown = values.slice(0, 3).map((value) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value));
  return values.length > 3 ? `${shown.join(", ")} and ${values.length - 3} more` : shown.join(", ");
}

const PASS: Part = { ok: true, problems: [] };

function fail(problem: string): Part {
  return { ok: false, problems: [problem] };
}
