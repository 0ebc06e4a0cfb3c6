import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/** docs/guarantees.md: each promise names the test that proves it, as `file` › "test name". */
function guaranteesSection(): string {
  return readFileSync("docs/guarantees.md", "utf8");
}

/** Every `file` › "name" (and further › "name" after the same file) in the section. */
function citedTests(section: string): { file: string; name: string }[] {
  const cited: { file: string; name: string }[] = [];
  const citation = /`([\w./-]+\.test\.ts)`((?:\s*›\s*"[^"]+"[,;]?)+)/g;
  for (const match of section.matchAll(citation)) {
    for (const name of match[2]!.matchAll(/"([^"]+)"/g)) cited.push({ file: match[1]!, name: name[1]! });
  }
  return cited;
}

describe("the documented guarantees", () => {
  const section = guaranteesSection();
  const cited = citedTests(section);

  it("cite tests", () => {
    expect(section).not.toBe("");
    expect(cited.length).toBeGreaterThan(30);
  });

  it.each(cited.map((entry) => [`${entry.file} › ${entry.name}`, entry] as const))(
    "names a test that exists: %s",
    (_label, { file, name }) => {
      expect(existsSync(file), `${file} does not exist`).toBe(true);
      const source = readFileSync(file, "utf8");
      expect(source.includes(`"${name}"`), `${file} has no test named "${name}"`).toBe(true);
    },
  );
});
