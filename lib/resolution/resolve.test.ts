import { hashPassword, verifyPassword } from "@/lib/links/password";
import { ABUSE, ACTIVE, QUARANTINE } from "@/lib/links/status";
import type { Verdict } from "@/lib/safety/verdict";
import { afterEach, describe, expect, it, vi } from "vitest";
import { answerFor } from "./answer";
import { DatabaseTrouble } from "./database-trouble";
import { LinkCache } from "./link-cache";
import { holdsPass, PASS_COOKIE } from "./password-gate";
import { type ResolutionDeps, resolveFromMemory, resolveVisit } from "./resolve";
import { compileRules, preferredLanguage } from "./rules";
import type { ReleasePolicy } from "./store";
import type { ResolvedLink, Visit } from "./types";

const GUESSES = 3;

const SPACING_MS = 60_000;
const POLICY: ReleasePolicy = { spacingMs: SPACING_MS, releaseChecks: 2, releaseAgeMs: 0 };
const CACHE_MS = 5_000;

function quarantined(overrides: Partial<ResolvedLink> = {}): ResolvedLink {
  return {
    id: "lnk_1",
    host: null,
    slug: "abc2345",
    destination: "https://example.com/",
    status: QUARANTINE,
    createdAt: 0,
    cleanChecks: 0,
    lastCountedCheckAt: null,
    abuseReason: null,
    rules: null,
    schedule: null,
    title: null,
    passwordHash: null,
    scanLimit: null,
    preview: null,
    ...overrides,
  };
}

function visitOf(link: ResolvedLink): Visit {
  return {
    method: "GET",
    host: link.host,
    requestHost: "s.example",
    slug: link.slug,
    forward: new URLSearchParams(),
    viaQr: false,
    userAgent: null,
    referrer: null,
    edgeCountry: null,
    forwardedFor: null,
    peerAddress: null,
    realIp: null,
    acceptLanguage: null,
    password: null,
    cookie: null,
    secure: true,
  };
}

/**
 * A world of one link held in memory: the store counts clean checks and releases the way the SQL
 * statement does, the clock is moved by hand, and the checker answers what the test says.
 */
function world(link: ResolvedLink, verdict: Verdict = { status: "clean", source: "test" }) {
  let now = 1_000_000;
  let stored = link;
  let databaseUp = true;
  let databaseHangs = false;
  const calls = {
    find: 0,
    count: 0,
    check: 0,
    block: [] as string[],
    logged: [] as string[],
    guesses: [] as string[],
    hashed: 0,
    counted: 0,
  };
  let scansCounted = 0;
  const remembered = new Set<string>();
  // Like the verdict cache: a verdict, once checked, can be read without waiting.
  let rememberedVerdict: Verdict | undefined;
  const answer = <T>(value: () => T): Promise<T> => {
    if (databaseHangs) return new Promise<T>(() => undefined);
    return databaseUp ? Promise.resolve(value()) : Promise.reject(new Error("connection refused"));
  };
  const deps: ResolutionDeps = {
    cache: new LinkCache(CACHE_MS),
    trouble: new DatabaseTrouble(),
    clock: { now: () => now },
    checker: {
      name: "test",
      check: async () => {
        calls.check++;
        return (rememberedVerdict = verdict);
      },
      peek: () => rememberedVerdict,
    },
    policy: POLICY,
    store: {
      findLink: () => {
        calls.find++;
        return answer(() => stored);
      },
      countCleanCheck: (_id, destination, at, policy) => {
        calls.count++;
        return answer(() => {
          const spaced = stored.lastCountedCheckAt === null || at - stored.lastCountedCheckAt >= policy.spacingMs;
          if (stored.status !== QUARANTINE || stored.destination !== destination || !spaced) return null;
          const cleanChecks = stored.cleanChecks + 1;
          const released = cleanChecks >= policy.releaseChecks && stored.createdAt <= at - policy.releaseAgeMs;
          stored = { ...stored, cleanChecks, lastCountedCheckAt: at, status: released ? ACTIVE : QUARANTINE };
          return stored;
        });
      },
      // As the statement does: each visit gets its own count; the last one within the limit switches the link.
      countScan: () =>
        answer(() => {
          calls.counted++;
          if (stored.scanLimit === null) return { kind: "gone" as const, link: stored };
          scansCounted += 1;
          if (scansCounted >= stored.scanLimit.after) {
            stored = { ...stored, destination: stored.scanLimit.destination, scanLimit: null, status: QUARANTINE };
          }
          return { kind: "counted" as const };
        }),
      blockForAbuse: (_id, reason) => {
        calls.block.push(reason);
        return answer(() => {
          stored = { ...stored, status: ABUSE, abuseReason: reason };
          return stored;
        });
      },
    },
    passwords: {
      verify: (password, hash) => {
        calls.hashed++;
        return verifyPassword(password, hash);
      },
      // The limiter's rule, a minute's budget of GUESSES at a code, counted by the world's clock.
      spendGuess: async (code, network) => {
        calls.guesses.push(`${code} ${network}`);
        const recent = calls.guesses.filter((guess) => guess.startsWith(`${code} `)).length;
        return recent > GUESSES ? { ok: false, retryAfterSeconds: 60 } : { ok: true };
      },
      remembered: { has: (key) => remembered.has(key), add: (key) => void remembered.add(key) },
    },
    log: (message) => calls.logged.push(message),
  };
  return {
    deps,
    calls,
    advance: (ms: number) => {
      now += ms;
    },
    databaseDown: () => {
      databaseUp = false;
    },
    databaseHanging: () => {
      databaseHangs = true;
    },
    databaseBack: () => {
      databaseHangs = false;
      databaseUp = true;
    },
    stored: () => stored,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("resolving a visit, with fakes through ResolutionDeps", () => {
  it("redirects a quarantined link after a clean live check and counts the check", async () => {
    const w = world(quarantined());
    const outcome = await resolveVisit(visitOf(w.stored()), w.deps);
    expect(outcome).toMatchObject({ kind: "redirect", location: "https://example.com/" });
    expect(w.calls.count).toBe(1);
    expect(w.stored().cleanChecks).toBe(1);
  });

  it("counts at most one clean check per spacing, and releases once enough are counted", async () => {
    const w = world(quarantined());
    const visit = visitOf(w.stored());
    await resolveVisit(visit, w.deps);
    w.advance(SPACING_MS - 1);
    await resolveVisit(visit, w.deps);
    expect(w.calls.count).toBe(1);
    w.advance(1);
    await resolveVisit(visit, w.deps);
    expect(w.stored()).toMatchObject({ cleanChecks: 2, status: ACTIVE });
  });

  it("serves the cached link while fresh, and asks the database again once the cache is stale", async () => {
    const w = world(quarantined({ status: ACTIVE }));
    const visit = visitOf(w.stored());
    await resolveVisit(visit, w.deps);
    w.advance(CACHE_MS - 1);
    await resolveVisit(visit, w.deps);
    expect(w.calls.find).toBe(1);
    w.advance(1);
    await resolveVisit(visit, w.deps);
    expect(w.calls.find).toBe(2);
  });

  it("serves a stale cached copy when the database is down, and is unavailable without one", async () => {
    const w = world(quarantined({ status: ACTIVE }));
    await resolveVisit(visitOf(w.stored()), w.deps);
    w.advance(CACHE_MS * 10);
    w.databaseDown();
    expect(await resolveVisit(visitOf(w.stored()), w.deps)).toMatchObject({ kind: "redirect" });
    expect(await resolveVisit({ ...visitOf(w.stored()), slug: "other77" }, w.deps)).toEqual({ kind: "unavailable" });
  });

  it("gives up on a database that hangs after its deadline, serving the stale copy", async () => {
    const w = world(quarantined({ status: ACTIVE }));
    await resolveVisit(visitOf(w.stored()), w.deps);
    w.advance(CACHE_MS * 10);
    w.databaseHanging();
    vi.useFakeTimers();
    const pending = resolveVisit(visitOf(w.stored()), w.deps);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await pending).toMatchObject({ kind: "redirect" });
    expect(w.calls.logged).toHaveLength(1);
  });

  it("once the database is known to hang, serves stale copies at once and re-reads them in the background", async () => {
    const w = world(quarantined({ status: ACTIVE }));
    const other = { ...visitOf(w.stored()), slug: "other77" };
    await resolveVisit(visitOf(w.stored()), w.deps);
    w.deps.cache.set("/other77", { ...w.stored(), slug: "other77" }, w.deps.clock.now());
    w.advance(CACHE_MS * 10);
    w.databaseHanging();
    vi.useFakeTimers();
    const first = resolveVisit(visitOf(w.stored()), w.deps);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await first).toMatchObject({ kind: "redirect" });

    // Known to hang now: no visit waits for the deadline again, and one re-read a link is in flight.
    const finds = w.calls.find;
    for (let index = 0; index < 5; index++) {
      expect(await resolveVisit(visitOf(w.stored()), w.deps)).toMatchObject({ kind: "redirect" });
      expect(await resolveVisit(other, w.deps)).toMatchObject({ kind: "redirect" });
    }
    expect(w.calls.find - finds).toBe(2);
    expect(w.calls.logged).toHaveLength(1);

    // The re-reads give up at their deadline; once the database answers, a re-read refreshes the copy.
    await vi.advanceTimersByTimeAsync(2_000);
    w.databaseBack();
    await resolveVisit(visitOf(w.stored()), w.deps);
    await vi.advanceTimersByTimeAsync(0);
    expect(w.deps.trouble.failing()).toBe(false);
    expect(w.deps.cache.fresh("/abc2345", w.deps.clock.now())).toMatchObject({ slug: "abc2345" });
  });

  it("does not put back the copy a change replaced when the change arrives while the link is being read", async () => {
    const w = world(quarantined({ status: ACTIVE }));
    let answer!: (link: ResolvedLink) => void;
    w.deps.store.findLink = () => new Promise((resolve) => (answer = resolve));
    const pending = resolveVisit(visitOf(w.stored()), w.deps);
    await Promise.resolve();
    // The link is repointed: every instance drops its copy while this lookup is under way.
    w.deps.cache.delete("/abc2345");
    answer(w.stored());
    expect(await pending).toMatchObject({ kind: "redirect" });
    expect(w.deps.cache.fresh("/abc2345", w.deps.clock.now())).toBeUndefined();
  });

  it("blocks a link whose live check is malicious and records it (the store tells every instance)", async () => {
    const w = world(quarantined(), { status: "malicious", source: "blocklist", threat: "phishing", detail: "listed" });
    const outcome = await resolveVisit(visitOf(w.stored()), w.deps);
    expect(outcome).toMatchObject({ kind: "blocked", link: { status: ABUSE } });
    expect(w.calls.block).toEqual(["listed (blocklist: phishing)"]);
  });

  it("fails open on an unknown verdict: redirects without counting", async () => {
    const w = world(quarantined(), { status: "unknown", source: "dns", reason: "timeout" });
    expect(await resolveVisit(visitOf(w.stored()), w.deps)).toMatchObject({ kind: "redirect" });
    expect(w.calls.count).toBe(0);
  });

  it("writes nothing when the database did not answer: a malicious stale copy is blocked here only", async () => {
    const w = world(quarantined(), { status: "malicious", source: "blocklist", threat: "malware", detail: "listed" });
    w.deps.cache.set("/abc2345", quarantined(), 0);
    w.databaseDown();
    expect(await resolveVisit(visitOf(w.stored()), w.deps)).toMatchObject({ kind: "blocked" });
    expect(w.calls.block).toEqual([]);
  });

  it("answers a warm quarantined link from memory once its verdict is known, until a clean check may count again", async () => {
    const w = world(quarantined());
    const visit = visitOf(w.stored());
    expect(resolveFromMemory(visit, w.deps)).toBeUndefined();
    await resolveVisit(visit, w.deps);
    expect(resolveFromMemory(visit, w.deps)).toMatchObject({ kind: "redirect", location: "https://example.com/" });
    expect(w.calls).toMatchObject({ find: 1, check: 1, count: 1 });
    w.advance(SPACING_MS);
    expect(resolveFromMemory(visit, w.deps), "the next clean check counts, which needs the database").toBeUndefined();
  });

  it("checks every destination a quarantined link holds before counting, all at once, and counts only when all are clean", async () => {
    const rules = compileRules(
      ["a", "b", "c"].map((language) => ({ when: { language: [language] }, destination: `https://example.com/${language}` })),
    );
    const w = world(quarantined({ rules }));
    let inFlight = 0;
    let mostAtOnce = 0;
    const asked: string[] = [];
    const known = new Map<string, Verdict>();
    w.deps.checker.peek = (url) => known.get(url);
    w.deps.checker.check = async (url) => {
      asked.push(url);
      mostAtOnce = Math.max(mostAtOnce, ++inFlight);
      await new Promise((settle) => setTimeout(settle, 1));
      inFlight--;
      const verdict: Verdict = url.endsWith("/b")
        ? { status: "unknown", source: "test", reason: "timeout" }
        : { status: "clean", source: "test" };
      known.set(url, verdict);
      return verdict;
    };
    await resolveVisit(visitOf(w.stored()), w.deps);
    expect(asked.sort()).toEqual([
      "https://example.com/",
      "https://example.com/a",
      "https://example.com/b",
      "https://example.com/c",
    ]);
    expect(mostAtOnce).toBe(3);
    expect(w.calls.count).toBe(0);
    expect(resolveFromMemory(visitOf(w.stored()), w.deps), "undecided: asked again after the spacing").toMatchObject({
      kind: "redirect",
    });
  });

  it("leaves a malicious verdict to the path that records the block", async () => {
    const w = world(quarantined(), { status: "malicious", source: "blocklist", threat: "phishing", detail: "listed" });
    w.deps.cache.set("/abc2345", quarantined(), 0);
    await w.deps.checker.check("https://example.com/");
    expect(resolveFromMemory(visitOf(w.stored()), w.deps)).toBeUndefined();
  });

  it("answers an unknown slug, an abuse block and an unknown verdict from memory", async () => {
    const w = world(quarantined(), { status: "unknown", source: "dns", reason: "timeout" });
    w.deps.cache.set("/Unknown9", null, 1_000_000);
    w.deps.cache.set("/blocked2", quarantined({ slug: "blocked2", status: ABUSE, abuseReason: "listed" }), 1_000_000);
    w.deps.cache.set("/abc2345", quarantined(), 1_000_000);
    await w.deps.checker.check("https://example.com/");
    expect(resolveFromMemory({ ...visitOf(w.stored()), slug: "Unknown9" }, w.deps)).toEqual({ kind: "not_found" });
    expect(resolveFromMemory({ ...visitOf(w.stored()), slug: "blocked2" }, w.deps)).toMatchObject({ kind: "blocked" });
    expect(resolveFromMemory(visitOf(w.stored()), w.deps)).toMatchObject({ kind: "redirect" });
    expect(w.calls.count).toBe(0);
  });
});

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const ANDROID =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";
const WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

/** Addresses GeoLite2 (geoip-country's database) places in Australia and the United Kingdom. */
const AU_ADDRESS = "203.2.218.214";
const GB_ADDRESS = "81.2.69.142";

describe("routing rules and scheduled repoints, from the cached link", () => {
  const routed = (overrides: Partial<ResolvedLink> = {}) =>
    quarantined({
      status: ACTIVE,
      rules: compileRules([
        { when: { country: ["AU"], device: ["mobile"] }, destination: "https://example.com/au-mobile" },
        { when: { os: ["ios"] }, destination: "https://example.com/ios" },
        { when: { os: ["android"] }, destination: "https://example.com/android" },
        { when: { language: ["fr"] }, destination: "https://example.com/fr" },
      ]),
      ...overrides,
    });

  it.each([
    [
      "an Australian iPhone: all of rule 0's conditions",
      { edgeCountry: "au", userAgent: IPHONE },
      "https://example.com/au-mobile",
      0,
    ],
    ["an iPhone elsewhere", { edgeCountry: "NZ", userAgent: IPHONE }, "https://example.com/ios", 1],
    ["an Android phone", { userAgent: ANDROID }, "https://example.com/android", 2],
    [
      "a French speaker on Windows",
      { userAgent: WINDOWS, acceptLanguage: "fr-CH, fr;q=0.9, en;q=0.8" },
      "https://example.com/fr",
      3,
    ],
    ["French only second", { userAgent: WINDOWS, acceptLanguage: "en-GB,en;q=0.9,fr;q=0.8" }, "https://example.com/", null],
    ["an Australian on a desktop", { edgeCountry: "AU", userAgent: WINDOWS }, "https://example.com/", null],
    // Without a trusted edge header, the country analytics records: the trusted address's, in GeoLite2.
    ["an iPhone from an Australian address", { peerAddress: AU_ADDRESS, userAgent: IPHONE }, "https://example.com/au-mobile", 0],
    [
      "the edge's word over the address",
      { edgeCountry: "NZ", peerAddress: AU_ADDRESS, userAgent: IPHONE },
      "https://example.com/ios",
      1,
    ],
    [
      // The suite plays one proxy in front of the front door (tests/support/per-file-setup.ts): it wrote the last entry.
      "an Australian address in X-Forwarded-For, which no trusted proxy wrote",
      { forwardedFor: `${AU_ADDRESS}, ${GB_ADDRESS}`, peerAddress: "10.0.0.2", userAgent: IPHONE },
      "https://example.com/ios",
      1,
    ],
    ["nothing known", {}, "https://example.com/", null],
  ] as const)("%s", async (_name, facts, location, servedRule) => {
    const w = world(routed());
    const visit = { ...visitOf(w.stored()), ...facts };
    expect(await resolveVisit(visit, w.deps)).toMatchObject({ kind: "redirect", location, servedRule });
    expect(resolveFromMemory(visit, w.deps)).toMatchObject({ kind: "redirect", location, servedRule });
  });

  it("runs the live check of a quarantined link on the destination the rule serves, and blocks on it", async () => {
    const checked: string[] = [];
    const w = world(routed({ status: QUARANTINE }), {
      status: "malicious",
      source: "blocklist",
      threat: "phishing",
      detail: "listed",
    });
    const check = w.deps.checker.check;
    w.deps.checker.check = (destination) => {
      checked.push(destination);
      return check(destination);
    };
    const outcome = await resolveVisit({ ...visitOf(w.stored()), userAgent: ANDROID }, w.deps);
    expect(checked).toEqual(["https://example.com/android"]);
    expect(outcome).toMatchObject({ kind: "blocked" });
  });

  it("serves a scheduled destination from its time on, from the same cached copy", async () => {
    const at = 1_000_000 + 1_000;
    const w = world(quarantined({ status: ACTIVE, schedule: [{ at, destination: "https://example.com/later" }] }));
    const visit = visitOf(w.stored());
    expect(await resolveVisit(visit, w.deps)).toMatchObject({ location: "https://example.com/" });
    w.advance(999);
    expect(resolveFromMemory(visit, w.deps)).toMatchObject({ location: "https://example.com/" });
    w.advance(1);
    expect(resolveFromMemory(visit, w.deps)).toMatchObject({ location: "https://example.com/later", servedRule: null });
    expect(w.calls.find).toBe(1);
  });

  it("reads the preferred language: the first of the highest weight, as a primary tag", () => {
    expect(preferredLanguage("fr-CH, fr;q=0.9, en;q=0.8")).toBe("fr");
    expect(preferredLanguage("en;q=0.5, de;q=0.9")).toBe("de");
    expect(preferredLanguage("*, es;q=0.1")).toBe("es");
    expect(preferredLanguage("x-klingon, 12")).toBeNull();
    expect(preferredLanguage(null)).toBeNull();
  });
});

describe("a password-protected link", () => {
  const PASSWORD = "open sesame";
  const protectedLink = async (overrides: Partial<ResolvedLink> = {}) =>
    quarantined({ status: ACTIVE, title: "Spring menu", passwordHash: await hashPassword(PASSWORD), ...overrides });
  const passFrom = (setCookie: string) => setCookie.split(";")[0]!;

  it("asks for the password from memory, without a live check, a scan or a guess spent", async () => {
    const w = world(await protectedLink({ status: QUARANTINE }));
    const visit = visitOf(w.stored());
    const outcome = await resolveVisit(visit, w.deps);
    expect(outcome).toMatchObject({ kind: "password_required", wrong: false });
    expect(resolveFromMemory(visit, w.deps)).toMatchObject({ kind: "password_required" });
    expect([w.calls.check, w.calls.guesses.length, w.calls.hashed]).toEqual([0, 0, 0]);
    const page = answerFor(outcome, visit);
    expect(page).toMatchObject({ status: 401, headers: { "WWW-Authenticate": expect.stringContaining("Link-Password") } });
    expect(page.body).toContain("<title>Spring menu</title>");
    expect(page.body).toMatch(/<form method="post">[\s\S]*type="password"/);
    expect(page.body).not.toContain("<script");
    expect(page.headers["Content-Security-Policy"]).toContain("default-src 'none'");
  });

  it("says plainly that a wrong password is wrong, and redirects on the right one with a pass for this code", async () => {
    const w = world(await protectedLink());
    const visit = visitOf(w.stored());
    const wrong = await resolveVisit({ ...visit, password: "open sesam" }, w.deps);
    expect(wrong).toMatchObject({ kind: "password_required", wrong: true });
    expect(answerFor(wrong, visit).body).toContain("That password is not right");
    const right = await resolveVisit({ ...visit, method: "POST", password: PASSWORD }, w.deps);
    expect(right).toMatchObject({ kind: "redirect", location: "https://example.com/" });
    const answer = answerFor(right, { ...visit, method: "POST" });
    expect(answer.status).toBe(302);
    expect(answer.headers["Set-Cookie"]).toMatch(
      new RegExp(`^${PASS_COOKIE}=\\d+\\.[\\w-]+; Path=/abc2345; Max-Age=1800; HttpOnly; SameSite=Lax; Secure$`),
    );
    // The pass alone lets the next visit through, from memory, with no password and no guess.
    const cookie = passFrom(answer.headers["Set-Cookie"]!);
    const guesses = w.calls.guesses.length;
    expect(resolveFromMemory({ ...visit, cookie: `other=1; ${cookie}` }, w.deps)).toMatchObject({ kind: "redirect" });
    expect(w.calls.guesses.length).toBe(guesses);
  });

  it("takes no pass it did not sign, one for another link, one expired, or one from before the password changed", async () => {
    const link = await protectedLink();
    const w = world(link);
    const right = await resolveVisit({ ...visitOf(link), password: PASSWORD }, w.deps);
    const cookie = passFrom(answerFor(right, visitOf(link)).headers["Set-Cookie"]!);
    const now = w.deps.clock.now();
    expect(holdsPass(link, cookie, now)).toBe(true);
    expect(holdsPass({ ...link, id: "lnk_2" }, cookie, now)).toBe(false);
    expect(holdsPass({ ...link, passwordHash: await hashPassword(PASSWORD) }, cookie, now)).toBe(false);
    expect(
      holdsPass(
        link,
        cookie.replace(/=(\d+)\./, (_all, at) => `=${Number(at) + 60}.`),
        now,
      ),
    ).toBe(false);
    expect(holdsPass(link, cookie, now + 30 * 60_000)).toBe(false);
  });

  it("limits guesses at a code, with a sentence and Retry-After, and a right password known already passes", async () => {
    const w = world(await protectedLink());
    const visit = visitOf(w.stored());
    expect(await resolveVisit({ ...visit, password: PASSWORD }, w.deps)).toMatchObject({ kind: "redirect" });
    for (let guess = 1; guess < GUESSES; guess++) {
      expect(await resolveVisit({ ...visit, password: `guess ${guess}` }, w.deps)).toMatchObject({ wrong: true });
    }
    const hashed = w.calls.hashed;
    const limited = await resolveVisit({ ...visit, password: "one more" }, w.deps);
    expect(limited).toEqual({ kind: "password_limited", link: w.stored(), retryAfterSeconds: 60 });
    expect(w.calls.hashed).toBe(hashed);
    const answer = answerFor(limited, visit);
    expect(answer).toMatchObject({ status: 429, headers: { "Retry-After": "60" } });
    expect(answer.body).toContain("Too many password attempts for this link just now; try again in 60 seconds.");
    // An agent that sent the right one before is not held back by someone else's guessing.
    expect(await resolveVisit({ ...visit, password: PASSWORD }, w.deps)).toMatchObject({ kind: "redirect" });
  });

  it("applies rules and the live check only after the password, and a blocked link never asks for one", async () => {
    const rules = compileRules([{ when: { language: ["fr"] }, destination: "https://example.com/fr" }]);
    const w = world(await protectedLink({ status: QUARANTINE, rules }));
    const visit = { ...visitOf(w.stored()), acceptLanguage: "fr" };
    expect(await resolveVisit(visit, w.deps)).toMatchObject({ kind: "password_required" });
    expect(w.calls.check).toBe(0);
    expect(await resolveVisit({ ...visit, password: PASSWORD }, w.deps)).toMatchObject({
      kind: "redirect",
      location: "https://example.com/fr",
      servedRule: 0,
    });
    expect(w.calls.check).toBeGreaterThan(0);
    const blocked = world(await protectedLink({ status: ABUSE, abuseReason: "phishing" }));
    expect(await resolveVisit(visitOf(blocked.stored()), blocked.deps)).toMatchObject({ kind: "blocked" });
  });

  it("leaves a link without a password as it was: no guess, no hash, no cookie", async () => {
    const w = world(quarantined({ status: ACTIVE }));
    const visit = { ...visitOf(w.stored()), password: "anything", cookie: `${PASS_COOKIE}=1.x` };
    const outcome = await resolveVisit(visit, w.deps);
    expect(outcome).toEqual({ kind: "redirect", link: w.stored(), location: "https://example.com/", servedRule: null });
    expect(answerFor(outcome, visit).headers["Set-Cookie"]).toBeUndefined();
    expect([w.calls.guesses.length, w.calls.hashed]).toEqual([0, 0]);
  });
});

describe("a scan limit", () => {
  const limited = (after: number) =>
    quarantined({ status: ACTIVE, scanLimit: { after, destination: "https://example.com/after" } });

  it("sends exactly `after` visits to the destination, then every visit to the limit's, counting each in the store", async () => {
    const w = world(limited(3));
    const visit = visitOf(w.stored());
    const locations: string[] = [];
    for (let index = 0; index < 6; index++) {
      const outcome = await resolveVisit(visit, w.deps);
      locations.push(outcome.kind === "redirect" ? outcome.location : outcome.kind);
    }
    expect(locations).toEqual([
      "https://example.com/",
      "https://example.com/",
      "https://example.com/",
      "https://example.com/after",
      "https://example.com/after",
      "https://example.com/after",
    ]);
    // Never from memory while the limit stands: the fourth visit found it gone and serves the link as it is now.
    expect(w.calls.counted).toBe(4);
    expect(resolveFromMemory(visit, w.deps)).toMatchObject({ kind: "redirect", location: "https://example.com/after" });
  });

  it("is not counted for a password page, and serves the visit as within the limit when the count fails", async () => {
    const w = world({ ...limited(1), passwordHash: await hashPassword("open sesame") });
    expect(await resolveVisit(visitOf(w.stored()), w.deps)).toMatchObject({ kind: "password_required" });
    expect(w.calls.counted).toBe(0);
    w.deps.cache.clear();
    w.databaseDown();
    const visit = { ...visitOf(w.stored()), password: "open sesame" };
    expect(await resolveVisit(visit, w.deps)).toEqual({ kind: "unavailable" });
  });
});

describe("a social preview", () => {
  const SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";
  const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
  const preview = {
    title: "Spring <menu>",
    description: "Twelve new dishes",
    imageUrl: "https://app.example/api/links/x/preview/image?v=1",
  };

  it("shows a crawler the preview page, from memory, and a person the redirect", async () => {
    const w = world(quarantined({ status: ACTIVE, preview }));
    const visit = visitOf(w.stored());
    expect(await resolveVisit({ ...visit, userAgent: BROWSER }, w.deps)).toMatchObject({ kind: "redirect" });
    const outcome = resolveFromMemory({ ...visit, userAgent: SLACK }, w.deps);
    expect(outcome).toEqual({ kind: "preview", link: w.stored(), location: "https://example.com/" });
    const answer = answerFor(outcome!, visit);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('<meta property="og:title" content="Spring &#60;menu&#62;">');
    expect(answer.body).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(answer.body).toContain(`<meta property="og:image" content="${preview.imageUrl}">`);
    expect(answer.body).toContain('<meta http-equiv="refresh" content="0; url=https://example.com/">');
  });

  it("gives a crawler the redirect at a link without a preview, and the password page at a password link", async () => {
    const plain = world(quarantined({ status: ACTIVE }));
    expect(await resolveVisit({ ...visitOf(plain.stored()), userAgent: SLACK }, plain.deps)).toMatchObject({ kind: "redirect" });
    const locked = world(quarantined({ status: ACTIVE, preview, passwordHash: await hashPassword("open sesame") }));
    const visit = { ...visitOf(locked.stored()), userAgent: SLACK };
    expect(await resolveVisit(visit, locked.deps)).toMatchObject({ kind: "password_required" });
    expect(await resolveVisit({ ...visit, password: "open sesame" }, locked.deps)).toMatchObject({ kind: "redirect" });
  });

  it("never counts a crawler toward a scan limit, nor names a scan-limited link's destination to it", async () => {
    const w = world(quarantined({ status: ACTIVE, preview, scanLimit: { after: 1, destination: "https://example.com/after" } }));
    const visit = { ...visitOf(w.stored()), userAgent: SLACK };
    // Anyone may claim to be Slackbot: the uncounted page must not lead past the limit.
    expect(await resolveVisit(visit, w.deps)).toMatchObject({ kind: "preview", location: null });
    expect(w.calls.counted).toBe(0);
    const blocked = world(quarantined({ status: ABUSE, preview, abuseReason: "phishing" }));
    expect(await resolveVisit({ ...visitOf(blocked.stored()), userAgent: SLACK }, blocked.deps)).toMatchObject({
      kind: "blocked",
    });
  });
});
