import { startFakeDnsServer, type FakeDnsServer } from "@/tests/support/fake-dns-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDnsChecker, type DnsChecker } from "./dns";
import { createDnsSafetyChecker } from "./dns-checker";

const TIMEOUT_MS = 400;

let server: FakeDnsServer;
let dns: DnsChecker;

beforeAll(async () => {
  server = await startFakeDnsServer({
    "public.example.net": { a: ["93.184.216.34"], aaaa: ["2606:2800:220:1:248:1893:25c8:1946"] },
    "v4only.example.net": { a: ["8.8.8.8"] },
    "private.example.net": { a: ["10.1.2.3"] },
    "mixed.example.net": { a: ["93.184.216.34", "10.0.0.7"] },
    "mixed-families.example.net": { a: ["93.184.216.34"], aaaa: ["fd00::1"] },
    "loopback6.example.net": { aaaa: ["::1"] },
    "mapped.example.net": { aaaa: ["::ffff:7f00:1"] },
    "metadata.example.net": { a: ["169.254.169.254"] },
    "empty.example.net": {},
    "broken.example.net": "servfail",
    "silent.example.net": "silent",
  });
  dns = createDnsChecker({ resolver: server.resolver, timeoutMs: TIMEOUT_MS });
});

afterAll(async () => {
  await server.close();
});

describe("createDnsChecker against a real DNS server", () => {
  it("calls a name public when every A and AAAA answer is public", async () => {
    await expect(dns.check("public.example.net")).resolves.toEqual({ status: "public" });
    await expect(dns.check("v4only.example.net")).resolves.toEqual({ status: "public" });
  });

  it("ignores case and a trailing root dot", async () => {
    await expect(dns.check("Public.Example.NET.")).resolves.toEqual({ status: "public" });
  });

  it.each([
    ["private.example.net", "10.1.2.3"],
    ["mixed.example.net", "10.0.0.7"],
    ["mixed-families.example.net", "fd00::1"],
    ["loopback6.example.net", "::1"],
    ["mapped.example.net", "::ffff:127.0.0.1"],
    ["metadata.example.net", "169.254.169.254"],
  ])("calls %s internal (it resolves to %s) without naming the address or its kind", async (name, address) => {
    const verdict = await dns.check(name);
    expect(verdict).toEqual({
      status: "internal",
      message: "The destination points to an internal or private address, which short links may not redirect to.",
    });
    expect(JSON.stringify(verdict)).not.toContain(address);
  });

  it("calls NXDOMAIN unresolved", async () => {
    const verdict = await dns.check("missing.example.net");
    expect(verdict.status).toBe("unresolved");
    expect(verdict.status === "unresolved" && verdict.message).toContain("NXDOMAIN");
  });

  it("calls SERVFAIL unresolved", async () => {
    const verdict = await dns.check("broken.example.net");
    expect(verdict.status).toBe("unresolved");
    expect(verdict.status === "unresolved" && verdict.message).toContain("SERVFAIL");
  });

  it("calls a name without addresses unresolved", async () => {
    await expect(dns.check("empty.example.net")).resolves.toMatchObject({ status: "unresolved" });
  });

  it("gives up on a server that never answers within about the timeout", async () => {
    const started = performance.now();
    const verdict = await dns.check("silent.example.net");
    const elapsed = performance.now() - started;
    expect(verdict.status).toBe("unresolved");
    expect(verdict.status === "unresolved" && verdict.message).toContain("timed out");
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(TIMEOUT_MS * 4);
    expect(server.queriesFor("silent.example.net")).toBeGreaterThan(0);
  });

  it("judges IP literals without asking the server", async () => {
    await expect(dns.check("8.8.8.8")).resolves.toEqual({ status: "public" });
    await expect(dns.check("[2606:4700::1111]")).resolves.toEqual({ status: "public" });
    await expect(dns.check("[::1]")).resolves.toMatchObject({ status: "internal" });
    expect(server.queriesFor("8.8.8.8")).toBe(0);
  });
});

describe("createDnsSafetyChecker", () => {
  it("maps public → clean, internal → malicious policy, unresolved → unknown", async () => {
    const checker = createDnsSafetyChecker(dns);
    await expect(checker.check("https://public.example.net/a")).resolves.toEqual({
      status: "clean",
      source: "dns",
    });
    await expect(checker.check("https://private.example.net/a")).resolves.toMatchObject({
      status: "malicious",
      source: "dns",
      threat: "policy",
    });
    await expect(checker.check("https://missing.example.net/")).resolves.toEqual({
      status: "unknown",
      source: "dns",
      reason: "unresolved",
    });
  });

  it("answers unknown/timeout as soon as the caller aborts", async () => {
    const checker = createDnsSafetyChecker(dns);
    const started = performance.now();
    const verdict = await checker.check("https://silent.example.net/", AbortSignal.timeout(50));
    expect(verdict).toEqual({ status: "unknown", source: "dns", reason: "timeout" });
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS);
  });
});

describe("createDnsChecker configuration", () => {
  it("rejects a malformed resolver address when created", () => {
    expect(() => createDnsChecker({ resolver: "not an address" })).toThrow();
  });
});
