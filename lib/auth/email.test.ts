import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normaliseEmail } from "./email";

describe("normaliseEmail", () => {
  it.each([
    ["alice@example.com", "alice@example.com"],
    ["  Alice@Example.COM  ", "alice@example.com"],
    ["alice@example.com.", "alice@example.com"],
    ["alice@example.com..", "alice@example.com"],
    ["ａｌｉｃｅ@ｅｘａｍｐｌｅ.com", "alice@example.com"],
    ["ALICE@EXAMPLE.COM", "alice@example.com"],
    ["strasse@example.com", "strasse@example.com"],
    ["STRAẞE@example.com", "strasse@example.com"],
    ["straße@example.com", "strasse@example.com"],
    ["ﬁle@example.com", "file@example.com"],
    ["kelvin\u212a@example.com", "kelvink@example.com"],
    ["josé@Bücher.Example", "josé@xn--bcher-kva.example"],
    ["jose\u0301@xn--bcher-kva.example", "josé@xn--bcher-kva.example"],
    ["first.last+tag@sub.example.org", "first.last+tag@sub.example.org"],
  ])("spells %j as %j", (input, expected) => {
    expect(normaliseEmail(input)).toBe(expected);
  });

  it.each([
    ["no at sign", "alice.example.com"],
    ["an empty local part", "@example.com"],
    ["an empty domain", "alice@"],
    ["a domain that is only dots", "alice@..."],
    ["an empty domain label", "alice@example..com"],
    ["a space inside", "ali ce@example.com"],
    ["a NUL byte", "alice\u0000@example.com"],
    ["a line break", "alice\n@example.com"],
    ["two at signs", "alice@bob@example.com"],
    ["an address literal", "alice@[10.0.0.1]"],
    ["a domain with a space", "alice@exa mple.com"],
    ["more than 254 characters", `${"a".repeat(250)}@example.com`],
  ])("refuses %s", (_label, input) => {
    expect(normaliseEmail(input)).toBeNull();
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(fc.emailAddress(), fc.constantFrom("", ".", " "), (address, suffix) => {
        const once = normaliseEmail(address + suffix);
        if (once !== null) expect(normaliseEmail(once)).toBe(once);
      }),
    );
  });

  it("gives one spelling to an address and its upper-case, full-width and trailing-dot variants", () => {
    fc.assert(
      fc.property(fc.emailAddress(), (address) => {
        const canonical = normaliseEmail(address);
        if (canonical === null) return;
        const fullWidth = address.replace(/[a-z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 0xfee0));
        expect(normaliseEmail(address.toUpperCase())).toBe(canonical);
        expect(normaliseEmail(fullWidth)).toBe(canonical);
        expect(normaliseEmail(`${address}.`)).toBe(canonical);
      }),
    );
  });
});
