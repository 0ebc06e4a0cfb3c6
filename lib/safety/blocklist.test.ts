import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBlocklistChecker, lookupExpressions, parseBlocklist } from "./blocklist";

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "safety-blocklist-"));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function writeBlocklist(name: string, text: string, modifiedAtSeconds?: number): Promise<string> {
  const file = join(directory, name);
  await writeFile(file, text);
  if (modifiedAtSeconds !== undefined) await utimes(file, modifiedAtSeconds, modifiedAtSeconds);
  return file;
}

function createClock(start = 1_000_000) {
  let current = start;
  return { now: () => current, advance: (ms: number) => (current += ms) };
}

describe("lookupExpressions", () => {
  it("builds Safe Browsing host-suffix × path-prefix expressions", () => {
    expect(new Set(lookupExpressions("http://a.b.c/1/2.html?param=1"))).toEqual(
      new Set([
        "a.b.c/1/2.html?param=1",
        "a.b.c/1/2.html",
        "a.b.c/",
        "a.b.c/1/",
        "b.c/1/2.html?param=1",
        "b.c/1/2.html",
        "b.c/",
        "b.c/1/",
      ]),
    );
  });

  it("uses only the exact host for an IP literal", () => {
    expect(lookupExpressions("http://8.8.8.8/a")).toEqual(["8.8.8.8/a", "8.8.8.8/"]);
  });
});

describe("parseBlocklist", () => {
  it("reads domains, URLs, threat words and comments, and skips unreadable lines", () => {
    const blocklist = parseBlocklist(
      [
        "# a comment",
        "",
        "Evil.Example.NET.",
        "phish.example.org phishing   # why it is here",
        "https://shared.example.com/~bad/ malware",
        "files.example.com/download/payload.zip?v=1 unwanted",
        "bogus.example.com wormhole",
        "two.example.com policy extra",
        "http://",
      ].join("\n"),
    );
    expect(Object.fromEntries(blocklist)).toEqual({
      "evil.example.net/": "policy",
      "phish.example.org/": "phishing",
      "shared.example.com/~bad/": "malware",
      "files.example.com/download/payload.zip?v=1": "unwanted",
    });
  });
});

describe("createBlocklistChecker", () => {
  it("flags Google's Safe Browsing test pages without any file", async () => {
    const checker = createBlocklistChecker();
    const cases: Array<[string, string]> = [
      ["http://malware.testing.google.test/testing/malware/", "malware"],
      ["https://phishing.testing.google.test/", "phishing"],
      ["https://unwanted.testing.google.test/x", "unwanted"],
      ["https://testsafebrowsing.appspot.com/s/phishing.html", "phishing"],
      ["https://testsafebrowsing.appspot.com/s/malware.html", "malware"],
      ["https://testsafebrowsing.appspot.com/s/unwanted.html", "unwanted"],
    ];
    for (const [url, threat] of cases) {
      await expect(checker.check(url)).resolves.toMatchObject({
        status: "malicious",
        source: "blocklist",
        threat,
      });
    }
    await expect(checker.check("https://testsafebrowsing.appspot.com/")).resolves.toEqual({
      status: "clean",
      source: "blocklist",
    });
  });

  it("matches domain entries on the host and its subdomains, URL entries by path", async () => {
    const file = await writeBlocklist(
      "blocklist.txt",
      [
        "evil.example.net",
        "phish.example.org phishing",
        "https://shared.example.com/~bad/ malware",
        "files.example.com/download/payload.zip unwanted",
      ].join("\n"),
    );
    const checker = createBlocklistChecker({ file });
    const expectations: Array<[string, string | null]> = [
      ["https://evil.example.net/", "policy"],
      ["https://EVIL.example.net./anything", "policy"],
      ["http://a.b.evil.example.net/x?y=1#z", "policy"],
      ["https://notevil.example.net/", null],
      ["https://phish.example.org/login", "phishing"],
      ["https://shared.example.com/~bad/page.html", "malware"],
      ["https://shared.example.com/%7Ebad/page.html", "malware"],
      ["https://shared.example.com/~good/page.html", null],
      ["https://files.example.com/download/payload.zip", "unwanted"],
      ["https://files.example.com/download/payload.zip?mirror=2", "unwanted"],
      ["https://files.example.com/download/other.zip", null],
    ];
    for (const [url, threat] of expectations) {
      const verdict = await checker.check(url);
      if (threat === null) expect(verdict, url).toEqual({ status: "clean", source: "blocklist" });
      else expect(verdict, url).toMatchObject({ status: "malicious", threat });
    }
  });

  it("reloads the file after it changes, at most once a second", async () => {
    const clock = createClock();
    const file = await writeBlocklist("blocklist.txt", "first.example.net\n", 1_700_000_000);
    const checker = createBlocklistChecker({ file, now: clock.now });
    await expect(checker.check("https://first.example.net/")).resolves.toMatchObject({ status: "malicious" });

    await writeBlocklist("blocklist.txt", "second.example.net\n", 1_700_000_100);
    clock.advance(500);
    await expect(checker.check("https://first.example.net/")).resolves.toMatchObject({ status: "malicious" });

    clock.advance(500);
    await expect(checker.check("https://first.example.net/")).resolves.toMatchObject({ status: "clean" });
    await expect(checker.check("https://second.example.net/")).resolves.toMatchObject({ status: "malicious" });
  });

  it("notices an edit that keeps the modification time but changes the size", async () => {
    const clock = createClock();
    const file = await writeBlocklist("blocklist.txt", "a.example.net\n", 1_700_000_000);
    const checker = createBlocklistChecker({ file, now: clock.now });
    await expect(checker.check("https://b.example.net/")).resolves.toMatchObject({ status: "clean" });
    await writeBlocklist("blocklist.txt", "a.example.net\nb.example.net\n", 1_700_000_000);
    clock.advance(1000);
    await expect(checker.check("https://b.example.net/")).resolves.toMatchObject({ status: "malicious" });
  });

  it("answers unknown while a configured file cannot be read, and recovers when it appears", async () => {
    const clock = createClock();
    const file = join(directory, "later.txt");
    const checker = createBlocklistChecker({ file, now: clock.now });
    await expect(checker.check("https://example.com/")).resolves.toEqual({
      status: "unknown",
      source: "blocklist",
      reason: "error",
    });
    await expect(checker.check("https://malware.testing.google.test/")).resolves.toMatchObject({
      status: "malicious",
    });
    await writeBlocklist("later.txt", "example.com phishing\n");
    clock.advance(1000);
    await expect(checker.check("https://example.com/")).resolves.toMatchObject({
      status: "malicious",
      threat: "phishing",
    });
  });

  it("answers unknown for a URL it cannot read", async () => {
    await expect(createBlocklistChecker().check("not a url")).resolves.toMatchObject({
      status: "unknown",
      reason: "error",
    });
  });
});
