import { describe, expect, it } from "vitest";
import { sameOriginUrl } from "./return-url";

const BASE = "https://app.example.com";

describe("sameOriginUrl", () => {
  it.each([
    ["/dashboard/links?page=2#top", "https://app.example.com/dashboard/links?page=2#top"],
    ["https://app.example.com/dashboard", "https://app.example.com/dashboard"],
    ["x", "https://app.example.com/x"],
    ["not a url", "https://app.example.com/not%20a%20url"],
    ["/\u3002x", "https://app.example.com/%E3%80%82x"],
    ["/%5Cevil.example/", "https://app.example.com/%5Cevil.example/"],
  ])("keeps %s on our origin as %s", (candidate, expected) => {
    expect(sameOriginUrl(candidate, BASE)).toBe(expected);
  });

  it.each([
    "//evil.example/",
    "/\\evil.example/",
    "\\\\evil.example",
    "/\t/evil.example/",
    "/\n/evil.example",
    " //evil.example",
    "https://evil.example/",
    "https://app.example.com.evil.example/",
    "http://app.example.com/",
    "https://app.example.com:8443/",
    "javascript:alert(1)",
    "data:text/html,hi",
  ])("refuses %j, which a browser would take elsewhere", (candidate) => {
    expect(sameOriginUrl(candidate, BASE)).toBeNull();
  });

  it("never gives back a protocol-relative path", () => {
    expect(sameOriginUrl("/.//evil.example/", BASE)).toBe("https://app.example.com//evil.example/");
  });
});
