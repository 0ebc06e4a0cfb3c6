import type { CaaRecord } from "node:dns";
import { Resolver } from "node:dns/promises";

/** An answer, or the resolver's error code (ENOTFOUND: no such name; ENODATA: the name exists without this type). */
export type Lookup<Value> = { ok: true; values: Value[] } | { ok: false; code: string };

/** The record lookups a domain check makes; each never throws. */
export type DomainResolver = {
  txt(name: string): Promise<Lookup<string>>;
  cname(name: string): Promise<Lookup<string>>;
  a(name: string): Promise<Lookup<string>>;
  aaaa(name: string): Promise<Lookup<string>>;
  caa(name: string): Promise<Lookup<CaaRecord>>;
};

/** Per try; c-ares may retry past it, so each lookup is also cancelled at the deadline. */
const TRY_TIMEOUT_MS = 1500;
const DEADLINE_MS = 3000;

/** Lookups through `server` ("host:port", DNS_RESOLVER) or, unset, the system's resolvers. */
export function createDomainResolver(server: string | undefined): DomainResolver {
  // A resolver per lookup, so that cancelling one at its deadline leaves the others alone.
  const fresh = () => {
    const resolver = new Resolver({ timeout: TRY_TIMEOUT_MS, tries: 2 });
    if (server !== undefined) resolver.setServers([server]);
    return resolver;
  };
  return {
    // A TXT record may be split into several strings; its value is their concatenation (RFC 7208 §3.3).
    txt: (name) =>
      lookup(fresh(), (resolver) => resolver.resolveTxt(name).then((records) => records.map((chunks) => chunks.join("")))),
    cname: (name) => lookup(fresh(), (resolver) => resolver.resolveCname(name)),
    a: (name) => lookup(fresh(), (resolver) => resolver.resolve4(name)),
    aaaa: (name) => lookup(fresh(), (resolver) => resolver.resolve6(name)),
    caa: (name) => lookup(fresh(), (resolver) => resolver.resolveCaa(name)),
  };
}

async function lookup<Value>(resolver: Resolver, run: (resolver: Resolver) => Promise<Value[]>): Promise<Lookup<Value>> {
  const deadline = setTimeout(() => resolver.cancel(), DEADLINE_MS);
  try {
    return { ok: true, values: await run(resolver) };
  } catch (error) {
    const code = error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "EUNKNOWN";
    return { ok: false, code };
  } finally {
    clearTimeout(deadline);
  }
}

/** No such record: the name does not exist, or exists without records of this type. */
export function isAbsent(result: Lookup<unknown>): boolean {
  return result.ok ? result.values.length === 0 : result.code === "ENOTFOUND" || result.code === "ENODATA";
}

export function describeLookupFailure(name: string, code: string): string {
  switch (code) {
    case "ESERVFAIL":
      return `The DNS servers of ${name} failed to answer (SERVFAIL); we will check again.`;
    case "ETIMEOUT":
    case "ECANCELLED":
      return `The DNS lookup of ${name} timed out; we will check again.`;
    case "EREFUSED":
      return `The DNS servers of ${name} refused to answer; we will check again.`;
    default:
      return `The DNS lookup of ${name} failed (${code}); we will check again.`;
  }
}
