import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

/** The documentation a newcomer reads: the README, the pages beside it (the changelog and upgrade notes too) and the bench's. */
const DOCUMENTS = [
  "README.md",
  "DEVELOPING.md",
  "CHANGELOG.md",
  "UPGRADE.md",
  "bench/README.md",
  ...readdirSync("docs", { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => join("docs", file)),
];

/** Targets of the Markdown links that point inside the repository (`[text](path#anchor)`), without the anchor. */
function localLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^(https?:|mailto:|#)/.test(target))
    .map((target) => target.split("#")[0]!);
}

describe("the documentation", () => {
  it("keeps the README within two screens", () => {
    expect(readFileSync("README.md", "utf8").split("\n").length).toBeLessThanOrEqual(150);
  });

  it.each(DOCUMENTS)("%s links only to files of the repository that exist", (file) => {
    const broken = localLinks(readFileSync(file, "utf8")).filter((target) => {
      const path = join(dirname(file), target);
      return path.startsWith("..") || !existsSync(path);
    });
    expect(broken).toEqual([]);
  });

  // An issue's number means something only to whoever read the tracker that day: a page says what was asked or found.
  it.each(DOCUMENTS)("%s names what a change was for, never an issue's number", (file) => {
    const references = readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, index) => [...line.matchAll(/\bissues? +#?\d+/gi)].map((match) => `line ${index + 1}: ${match[0]}`));
    expect(references).toEqual([]);
  });

  it.each(DOCUMENTS)("%s has no line over 1,000 characters", (file) => {
    const long = readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line.length > 1000);
    expect(long.map((line) => line.slice(0, 80))).toEqual([]);
  });
});
