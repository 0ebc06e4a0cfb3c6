import { describe, expect, it } from "vitest";
import { registrableDomain, warningReached } from "./lapse";
import { expirationOf, parseBootstrap, rdapBaseFor } from "./rdap";
import shipped from "./rdap-bootstrap.json";

const DAY = 24 * 60 * 60_000;

describe("the RDAP bootstrap (RFC 9224)", () => {
  it("ships a snapshot in IANA's dns.json format with the commonest TLDs' registries", () => {
    const bootstrap = parseBootstrap(shipped);
    expect(rdapBaseFor("example.com", bootstrap)).toBe("https://rdap.verisign.com/com/v1/");
    expect(rdapBaseFor("EXAMPLE.NET", bootstrap)).toBe("https://rdap.verisign.com/net/v1/");
    expect(rdapBaseFor("example.org", bootstrap)).toBe("https://rdap.publicinterestregistry.org/rdap/");
    expect(rdapBaseFor("example.co.uk", bootstrap)).toBe("https://rdap.nominet.uk/uk/");
    expect(rdapBaseFor("example.invalid", bootstrap)).toBeNull();
  });

  it("picks the entry matching the most labels, its HTTPS URL first, and adds the trailing slash", () => {
    const bootstrap = parseBootstrap({
      version: "1.0",
      publication: "2026-12-01T00:00:00Z",
      services: [
        [["uk"], ["https://rdap.example-uk.test/uk"]],
        [["co.uk"], ["http://plain.example.test/", "https://secure.example.test/co/"]],
      ],
    });
    expect(rdapBaseFor("shop.co.uk", bootstrap)).toBe("https://secure.example.test/co/");
    expect(rdapBaseFor("shop.org.uk", bootstrap)).toBe("https://rdap.example-uk.test/uk/");
  });

  it("refuses a document that is not in the format, saying where", () => {
    expect(() => parseBootstrap({ version: "1.0", publication: "x", services: [[["com"], ["ftp://x.test/"]]] })).toThrow(
      /^The RDAP bootstrap is not in IANA's dns.json format \(RFC 9224\): services\.0\.1\.0/,
    );
  });
});

describe("an RDAP domain object (RFC 9083)", () => {
  it("reads the expiration event's date, and nothing from an object without one", () => {
    const events = [
      { eventAction: "registration", eventDate: "1997-09-15T04:00:00Z" },
      { eventAction: "expiration", eventDate: "2028-09-14T04:00:00Z" },
    ];
    expect(expirationOf({ objectClassName: "domain", events })).toEqual(new Date("2028-09-14T04:00:00Z"));
    expect(expirationOf({ events: [{ eventAction: "expiration", eventDate: "soon" }] })).toBeNull();
    expect(expirationOf({ events: "expiration" })).toBeNull();
    expect(expirationOf(null)).toBeNull();
  });
});

describe("lapses", () => {
  it("looks up the registrable domain by the public suffix list", () => {
    expect(registrableDomain("go.shop.example.co.uk")).toBe("example.co.uk");
    expect(registrableDomain("links.example.com")).toBe("example.com");
  });

  it("reaches the nearest of the 30, 7 and 1 day warnings, and the last one once lapsed", () => {
    expect(warningReached(31 * DAY)).toBeNull();
    expect(warningReached(30 * DAY)).toBe(30);
    expect(warningReached(8 * DAY)).toBe(30);
    expect(warningReached(7 * DAY)).toBe(7);
    expect(warningReached(DAY)).toBe(1);
    expect(warningReached(-DAY)).toBe(1);
  });
});
