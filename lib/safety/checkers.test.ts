import { startFakeDnsServer, type FakeDnsServer } from "@/tests/support/fake-dns-server";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createCompositeChecker,
  createDefaultChecker,
  createHeuristicChecker,
  type SafetyChecker,
  type Verdict,
} from "./checkers";

/** A checker with a fixed answer, to pin down how the composite combines answers. */
function fixedChecker(name: string, verdict: Verdict | Error, delayMs = 0): SafetyChecker & { aborted: boolean } {
  const checker = {
    name,
    aborted: false,
    check(_url: string, signal?: AbortSignal) {
      signal?.addEventListener("abort", () => (checker.aborted = true));
      return new Promise<Verdict>((resolve, reject) => {
        setTimeout(() => (verdict instanceof Error ? reject(verdict) : resolve(verdict)), delayMs);
      });
    },
  };
  return checker;
}

describe("createHeuristicChecker", () => {
  const checker = createHeuristicChecker({ ownHosts: ["prml.ink", "Links.Example.COM.", "localhost:3000"] });

  it.each(["https://prml.ink/abc", "https://PRML.INK./abc", "http://links.example.com/x", "http://localhost:3000/abc"])(
    "refuses a loop through our own short host: %s",
    async (url) => {
      const verdict = await checker.check(url);
      expect(verdict).toMatchObject({ status: "malicious", source: "heuristics", threat: "policy" });
      expect(verdict.status === "malicious" && verdict.detail).toContain("redirect loop");
    },
  );

  it("refuses a loop through a host served at run time (a verified custom domain), asking with the canonical name", async () => {
    const asked: string[] = [];
    const withDomains = createHeuristicChecker({
      ownHosts: ["prml.ink"],
      isServedHost: async (hostname) => {
        asked.push(hostname);
        return hostname === "go.customer.example";
      },
    });
    const verdict = await withDomains.check("https://GO.Customer.Example./menu");
    expect(verdict).toMatchObject({ status: "malicious", source: "heuristics", threat: "policy" });
    expect(verdict.status === "malicious" && verdict.detail).toContain("redirect loop");
    expect(asked).toEqual(["go.customer.example"]);
    await expect(withDomains.check("https://other.customer.example/menu")).resolves.toEqual({
      status: "clean",
      source: "heuristics",
    });
  });

  it.each([
    "https://example.com/setup.exe",
    "https://example.com/SETUP.EXE",
    "https://example.com/a/screensaver.scr",
    "https://example.com/installer.msi",
    "https://example.com/app.apk?utm_source=x",
    "https://example.com/run.bat",
    "https://example.com/run.cmd",
    "https://example.com/script.ps1",
    "https://example.com/script.vbs",
    "https://example.com/tool.jar#top",
    "https://example.com/file%2Eexe",
    "https://example.com/file.exe/",
    "https://example.com/file.exe//",
    "https://example.com/file.exe;",
    "https://example.com/file.exe;jsessionid=1",
    "https://example.com/file.exe%3B",
    "https://example.com/file.exe.",
    "https://example.com/file.exe%20",
    "https://example.com/file.exe%2F",
    "https://example.com/setup.exe%00",
    "https://example.com/setup.exe%09",
    "https://example.com/setup.exe%0D%0A",
    "https://example.com/setup.exe%00.txt",
    "https://example.com/set%01up.exe%7F",
  ])("refuses an executable download: %s", async (url) => {
    await expect(checker.check(url)).resolves.toMatchObject({ status: "malicious", threat: "policy" });
  });

  it.each([
    "https://docs.prml.ink/",
    "https://example.com/readme.exe.txt",
    "https://example.com/exe",
    "https://example.com/download?file=setup.exe",
    "https://example.com/setup.exe/readme",
    "https://example.com/a;setup.exe/readme",
    "https://example.com/",
  ])("lets %s through", async (url) => {
    await expect(checker.check(url)).resolves.toEqual({ status: "clean", source: "heuristics" });
  });
});

describe("createCompositeChecker", () => {
  const clean = (name: string): Verdict => ({ status: "clean", source: name });

  it("is clean only when every checker is clean", async () => {
    const composite = createCompositeChecker("chain", [fixedChecker("a", clean("a")), fixedChecker("b", clean("b"))]);
    await expect(composite.check("https://example.com/")).resolves.toEqual({ status: "clean", source: "chain" });
  });

  it("is the first unknown in chain order when nothing is malicious", async () => {
    const composite = createCompositeChecker("chain", [
      fixedChecker("a", clean("a")),
      fixedChecker("b", { status: "unknown", source: "b", reason: "unresolved" }, 20),
      fixedChecker("c", { status: "unknown", source: "c", reason: "timeout" }),
    ]);
    await expect(composite.check("https://example.com/")).resolves.toEqual({
      status: "unknown",
      source: "b",
      reason: "unresolved",
    });
  });

  it("counts a checker that throws as unknown/error", async () => {
    const composite = createCompositeChecker("chain", [fixedChecker("a", clean("a")), fixedChecker("broken", new Error("boom"))]);
    await expect(composite.check("https://example.com/")).resolves.toEqual({
      status: "unknown",
      source: "broken",
      reason: "error",
    });
  });

  it("returns the first malicious verdict at once and aborts the others", async () => {
    const slow = fixedChecker("slow", clean("slow"), 5000);
    const composite = createCompositeChecker("chain", [
      slow,
      fixedChecker("unknown", { status: "unknown", source: "unknown", reason: "error" }),
      fixedChecker("bad", { status: "malicious", source: "bad", threat: "phishing", detail: "listed" }, 10),
    ]);
    const started = performance.now();
    await expect(composite.check("https://example.com/")).resolves.toMatchObject({ status: "malicious", source: "bad" });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(slow.aborted).toBe(true);
  });

  it("passes the caller's abort on to every checker", async () => {
    const slow = fixedChecker("slow", clean("slow"), 50);
    const controller = new AbortController();
    const pending = createCompositeChecker("chain", [slow]).check("https://example.com/", controller.signal);
    controller.abort();
    await pending;
    expect(slow.aborted).toBe(true);
  });

  it("refuses an empty chain", () => {
    expect(() => createCompositeChecker("empty", [])).toThrow();
  });
});

describe("createDefaultChecker with a real file, DNS server and Web Risk stub", () => {
  let directory: string;
  let dns: FakeDnsServer;
  let webRisk: Server;
  let webRiskBaseUrl: string;
  let webRiskRequests = 0;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "safety-default-"));
    await writeFile(join(directory, "blocklist.txt"), "blocked.example.net phishing\n");
    dns = await startFakeDnsServer({
      "good.example.net": { a: ["93.184.216.34"] },
      "blocked.example.net": { a: ["93.184.216.34"] },
      "sneaky.example.net": { a: ["192.168.1.10"] },
      "flagged.example.net": { a: ["93.184.216.34"] },
    });
    webRisk = createServer((request, response) => {
      webRiskRequests += 1;
      const uri = new URL(request.url ?? "/", "http://127.0.0.1").searchParams.get("uri") ?? "";
      const body = uri.includes("flagged") ? { threat: { threatTypes: ["MALWARE"], expireTime: "2999-01-01T00:00:00Z" } } : {};
      response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => webRisk.listen(0, "127.0.0.1", resolve));
    webRiskBaseUrl = `http://127.0.0.1:${(webRisk.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await dns.close();
    await new Promise((resolve) => webRisk.close(resolve));
    await rm(directory, { recursive: true, force: true });
  });

  function defaultChecker(withWebRisk: boolean): SafetyChecker {
    return createDefaultChecker({
      blocklistFile: join(directory, "blocklist.txt"),
      ownHosts: ["prml.ink"],
      dnsResolver: dns.resolver,
      ...(withWebRisk ? { webRiskApiKey: "key", webRiskBaseUrl } : {}),
    });
  }

  it.each([
    ["https://good.example.net/page", { status: "clean", source: "default" }],
    ["https://blocked.example.net/", { status: "malicious", source: "blocklist", threat: "phishing" }],
    ["https://good.example.net/tool.exe", { status: "malicious", source: "heuristics", threat: "policy" }],
    ["https://prml.ink/abc", { status: "malicious", source: "heuristics", threat: "policy" }],
    ["https://sneaky.example.net/", { status: "malicious", source: "dns", threat: "policy" }],
    ["https://missing.example.net/", { status: "unknown", source: "dns", reason: "unresolved" }],
  ])("offline chain: %s", async (url, expected) => {
    await expect(defaultChecker(false).check(url)).resolves.toMatchObject(expected);
  });

  it("adds Web Risk when given an API key", async () => {
    const checker = defaultChecker(true);
    await expect(checker.check("https://good.example.net/")).resolves.toEqual({ status: "clean", source: "default" });
    await expect(checker.check("https://flagged.example.net/")).resolves.toMatchObject({
      status: "malicious",
      source: "webrisk",
      threat: "malware",
    });
    expect(webRiskRequests).toBe(2);
  });
});
