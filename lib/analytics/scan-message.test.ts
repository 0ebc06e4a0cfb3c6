import { newId } from "@/lib/db/random";
import { describe, expect, it } from "vitest";
import { enrichScan } from "./enrich";
import { InvalidScanMessage, scanMessageFromText, scanMessageText } from "./scan-message";
import type { CapturedScan } from "./types";

const AGENTS = [
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "=cmd|' /C calc'!A0",
  "x".repeat(2_000),
  null,
];

const captured = (userAgent: string | null, index: number): CapturedScan => ({
  linkId: newId("lnk"),
  host: index % 2 ? "s.example" : "[::1]",
  occurredAt: Date.now() - index,
  method: index === 3 ? "HEAD" : "GET",
  viaQr: index % 2 === 0,
  userAgent,
  referrer: index % 2 ? "https://News.Example/page" : "not a url",
  edgeCountry: index % 2 ? "au" : "XX",
  forwardedFor: null,
  peerAddress: "203.0.113.9",
  realIp: null,
  servedRule: index % 3 ? null : 19,
});

describe("scan messages", () => {
  it("read back every row the door's enrichment writes, whatever the visitor sent", () => {
    const rows = AGENTS.map((agent, index) => enrichScan(captured(agent, index), () => "NZ"));
    const message = { id: `${crypto.randomUUID()}.0`, rows, counts: rows.map((_, index) => index + 1) };
    expect(scanMessageFromText(scanMessageText(message))).toEqual(message);
  });

  it("are refused with the first field that is wrong, never its value", () => {
    const row = enrichScan(captured(AGENTS[0]!, 0), () => null);
    const text = scanMessageText({ id: "batch", rows: [{ ...row, country: "=1+1" }], counts: [1] });
    expect(() => scanMessageFromText(text)).toThrow(new InvalidScanMessage("rows.0.country is not a country code"));
  });
});
