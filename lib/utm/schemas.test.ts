import { describe, expect, it } from "vitest";
import { createUtmTemplateBody } from "./schemas";

const accepts = (name: string) => createUtmTemplateBody.safeParse({ name: `Spring ${name}`, utm_source: "poster" }).success;

describe("a UTM template's name", () => {
  it("refuses exactly Unicode's control and formatting characters, in every plane", () => {
    const codes = [
      ...Array.from({ length: 0x10000 }, (_, code) => code).filter((code) => code < 0xd800 || code > 0xdfff),
      ...[0x1f600, 0x110bd, 0x110cd, 0x13430, 0x1343f, 0x1bca0, 0x1d173, 0xe0001, 0xe0020, 0xe007f, 0xe0080, 0x10ffff],
    ];
    const wrong = codes.filter((code) => {
      const character = String.fromCodePoint(code);
      // A name is trimmed first: white space alone at either end is not part of it, so each character goes in the middle.
      return accepts(`${character}menu`) === /[\p{Cc}\p{Cf}]/u.test(character);
    });
    expect(wrong.map((code) => code.toString(16))).toEqual([]);
  });

  it("says why, the same way for a formatting character of either plane", () => {
    for (const character of ["\u200b", "\u{e0001}", "\u0007"]) {
      const result = createUtmTemplateBody.safeParse({ name: `Spring${character}menu`, utm_source: "poster" });
      expect(result.error?.issues[0]?.message).toBe("may not contain control or invisible formatting characters");
    }
  });
});
