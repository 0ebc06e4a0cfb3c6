import { describe, expect, it } from "vitest";
import { canonicalCode, codePath, collidingPath, CUSTOM_SLUG_PATTERN, isLookupCode, printedCodeProblem } from "./slugs";

describe("printed codes keep what their source allowed", () => {
  it.each([
    "café",
    "구글",
    "mañana",
    "menu.pdf",
    "deal~1",
    "go",
    "x",
    "0",
    "O",
    "1",
    "l",
    "I",
    "BAGUETTE",
    "2024/spring",
    "docs",
    "api",
  ])("%s is a code", (code) => {
    expect(printedCodeProblem(code)).toBeNull();
    expect(isLookupCode(code)).toBe(true);
  });

  it.each([
    ["", /empty/],
    ["a//b", /empty segment/],
    ["a/../b", /only \. or \.\./],
    ["..", /only \. or \.\./],
    ["a b", /letters of any script/],
    ["a?b", /letters of any script/],
    ["✓", /letters of any script/],
    ["x".repeat(191), /at most 190/],
    ["api/v2", /under \/api/],
    ["Dashboard/links", /under \/dashboard/],
    ["_next", /under \/_next/],
    [".well-known/acme-challenge", /under \/\.well-known/],
  ])("%j is refused", (code, sentence) => {
    expect(printedCodeProblem(code)).toMatch(sentence);
    // A plain code is looked up as it is: an older code of that shape keeps resolving.
    expect(isLookupCode(code)).toBe(/^[A-Za-z0-9_-]+$/.test(code));
  });

  it("stores one form of a code, and writes it into a URL's path percent-encoded", () => {
    expect(canonicalCode("cafe\u0301")).toBe("café");
    expect(codePath("café")).toBe("/caf%C3%A9");
    expect(codePath("2024/spring")).toBe("/2024/spring");
    expect(codePath("deal~1")).toBe("/deal~1");
    expect(collidingPath("docs")).toBeNull();
    // An invitation's page is the app's below /invite; the one segment stays a code.
    expect(collidingPath("invite/Kx7-token")).toBe("/invite");
    expect(collidingPath("invite")).toBeNull();
  });
});

describe("custom slugs typed here", () => {
  it.each(["spring-menu", "menus/spring", "menu.pdf", "offer~2", "a_b/c-d.e"])("take %s", (slug) =>
    expect(CUSTOM_SLUG_PATTERN.test(slug)).toBe(true),
  );
  it.each(["menu1", "IOU", "café", ".hidden", "menu.", "a..b", "a//b", "/a", "a/", "~x", "a b"])("refuse %s", (slug) =>
    expect(CUSTOM_SLUG_PATTERN.test(slug)).toBe(false),
  );
});
