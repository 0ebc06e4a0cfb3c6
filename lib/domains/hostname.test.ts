import { describe, expect, it } from "vitest";
import { isApexHostname, parseCustomHostname } from "./hostname";

const OWN = ["s.permalink.app", "permalink.app"];

describe("parseCustomHostname", () => {
  it("normalises case, IDN, trailing dots and ports, and tells an apex from a subdomain", () => {
    expect(parseCustomHostname("Go.Example.COM.", OWN)).toEqual({ hostname: "go.example.com", apex: false });
    expect(parseCustomHostname("example.co.uk:443", OWN)).toEqual({ hostname: "example.co.uk", apex: true });
    expect(parseCustomHostname("ｇｏ.bücher.de", OWN)).toEqual({ hostname: "go.xn--bcher-kva.de", apex: false });
  });

  it.each([
    "10.0.0.1",
    "[::1]",
    "2130706433",
    "localhost",
    "box",
    "nas.lan",
    "api.svc",
    "co.uk",
    "com",
    "permalink.app",
    "x.s.permalink.app",
    "a b.com",
    "user@example.com",
    "-bad.example.com",
    `${"a".repeat(64)}.com`,
  ])("refuses %s", (hostname) => {
    expect(() => parseCustomHostname(hostname, OWN)).toThrow();
  });
});

describe("isApexHostname", () => {
  it("follows the public suffix list (ICANN section)", () => {
    expect(isApexHostname("example.com")).toBe(true);
    expect(isApexHostname("shop.example.com")).toBe(false);
    expect(isApexHostname("example.com.au")).toBe(true);
    expect(isApexHostname("go.example.com.au")).toBe(false);
  });
});
