import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/import-graph";

/** The dashboard's server actions ("use server" modules), by file. */
function serverActionFiles(): string[] {
  return sourceFiles("app").filter((file) => /^["']use server["'];/.test(readFileSync(file, "utf8").trimStart()));
}

describe("the dashboard's actions", () => {
  it("live beside the pages of their area, one actions file an area, never in one file for all", () => {
    const files = serverActionFiles();
    expect(files.length).toBeGreaterThan(5);
    const misplaced = files.filter((file) => !/^app\/dashboard\/[a-z-]+(?:\/[^/]+)*\/(?:[a-z-]+-)?actions\.ts$/.test(file));
    expect(misplaced).toEqual([]);
  });
});
