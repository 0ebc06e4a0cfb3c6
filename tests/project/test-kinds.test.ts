import { TEST_KINDS } from "@/vitest.config";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const THIS_FILE = "tests/project/test-kinds.test.ts";
/** e2e/ is Playwright's, not vitest's; the rest are not the project's source. */
const SKIPPED = new Set(["node_modules", ".next", ".git", ".vercel", "e2e", "test-results"]);

function filesUnder(directory: string, wanted: (name: string) => boolean): string[] {
  return readdirSync(path.join(ROOT, directory), { withFileTypes: true }).flatMap((entry) => {
    const relative = directory ? `${directory}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : filesUnder(relative, wanted);
    return wanted(entry.name) ? [relative] : [];
  });
}

const testFiles = (directory: string) => filesUnder(directory, (name) => name.endsWith(".test.ts"));
const sourceFiles = (directory: string) => filesUnder(directory, (name) => name.endsWith(".ts"));

/** Each kind's globs are a folder and `**\/*.test.ts`: the folder is what decides. */
const folderOf = (glob: string) => glob.slice(0, glob.indexOf("**"));

describe("the suites by kind", () => {
  it("hold every test file exactly once", () => {
    const files = testFiles("");
    expect(files.length).toBeGreaterThan(100);
    const unheld = files.filter(
      (file) =>
        Object.values(TEST_KINDS).flatMap((globs) => globs.filter((glob) => file.startsWith(folderOf(glob)))).length !== 1,
    );
    expect(unheld).toEqual([]);
  });

  it("each have their npm script, and CI runs them all and the deployment's again on the built artifact", () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    const ci = readFileSync(path.join(ROOT, ".ci/run"), "utf8");
    for (const kind of Object.keys(TEST_KINDS)) expect(scripts[`test:${kind}`]).toBe(`vitest run --project ${kind}`);
    expect(scripts.test).toBe("vitest run");
    expect(ci).toMatch(/^npm test$/m);
    expect(ci).toMatch(/^VERCEL_OUTPUT_REQUIRED=1 TEST_SKIP_BUILD=1 npm run test:deployment$/m);
  });

  it("install no system package: .ci/run installs what they need, and the cluster suite never asks apt", () => {
    const sources = [...sourceFiles("tests"), ...sourceFiles("e2e")]
      .filter((file) => file !== THIS_FILE)
      .map((file) => ({
        file,
        text: readFileSync(path.join(ROOT, file), "utf8"),
      }));
    expect(sources.filter(({ text }) => /apt-get|ensureCommands\(/.test(text)).map(({ file }) => file)).toEqual([]);
    const clusters = sources.filter(({ text }) => text.includes("startCluster({"));
    expect(clusters.map(({ file }) => file)).toEqual(["tests/cluster/cluster.test.ts"]);
    for (const { text } of clusters) expect(text).toMatch(/startCluster\(\{[^}]*install: false/);
    expect(readFileSync(path.join(ROOT, ".ci/run"), "utf8")).toMatch(/for program in chromium haproxy;/);
  });
});
