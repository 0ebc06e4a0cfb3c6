import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CAPABILITIES, FLOOR, ROOF } from "../support/layers";

/** The names DEVELOPING.md's drawing gives lib/'s entries, by section: before the first rule, between the rules, after. */
function drawnSections(): string[][] {
  const text = readFileSync("DEVELOPING.md", "utf8");
  const drawing = text.slice(text.indexOf("\nlib/\n") + "\nlib/\n".length, text.indexOf("\nprisma/ "));
  const sections: string[][] = [[]];
  for (const line of drawing.split("\n")) {
    if (line.trim().startsWith("──")) sections.push([]);
    else {
      const names = /^(?:[a-z-]+(?:\/|\.ts))(?:, [a-z-]+(?:\/|\.ts))*/.exec(line.trim())?.[0].split(", ") ?? [];
      sections.at(-1)!.push(...names.map((name) => name.replace(/(?:\/|\.ts)$/, "")));
    }
  }
  return sections;
}

describe("DEVELOPING.md's map of lib/", () => {
  it("draws the roof, then the capabilities in the layers test's order, then the floor", () => {
    const [roof, capabilities, floor, ...rest] = drawnSections();
    expect(rest).toEqual([]);
    expect(roof).toEqual(ROOF);
    expect(capabilities).toEqual(CAPABILITIES);
    expect([...floor!].sort()).toEqual([...FLOOR].sort());
  });
});
