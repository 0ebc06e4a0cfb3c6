import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/import-graph";
import { ROOF } from "../support/layers";

/** The one place an operation's checks run, in their one order. */
const PIPELINE = "lib/api/pipeline.ts";

/** The doors and the function each hands its operation to runOperation in. */
const DOORS = { "lib/api/route.ts": "apiRoute", "lib/api/dashboard.ts": "dashboardAction", "lib/mcp/tool.ts": "defineTool" };

/**
 * The steps of the order that a door could take by hand: the scope, the write budget (a
 * workspace's or a client address's) and the invalidations sent after the call.
 */
const STEPS = ["requireScope", "enforceWriteBudget", "enforceWriteLimit", "enforceClientWriteLimit", "invalidationsSent"];

/** Every identifier of a file's code (imports, calls, property accesses), comments and strings left out. */
function identifiers(file: string): Set<string> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) names.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** The roof of lib/ and app/: every way an operation is called (route handlers, pages' actions, MCP tools). */
const DOOR_FILES = [...ROOF.flatMap((folder) => sourceFiles(`lib/${folder}`)), ...sourceFiles("app")].filter(
  (file) => !file.endsWith(".test.ts"),
);

describe("the order of an operation's checks", () => {
  it("is spelled out and run in one place, runOperation in lib/api/pipeline.ts, which takes every step", () => {
    const names = identifiers(PIPELINE);
    expect(names.has("runOperation")).toBe(true);
    expect(STEPS.filter((step) => !names.has(step))).toEqual([]);
  });

  it("is what every door runs: apiRoute, dashboardAction and an MCP tool's call go through runOperation", () => {
    const bypassing = Object.entries(DOORS)
      .filter(([file, door]) => {
        const names = identifiers(file);
        return !names.has(door) || !names.has("runOperation");
      })
      .map(([file]) => file);
    expect(bypassing).toEqual([]);
  });

  it("is never taken by hand: no door names the scope check, a write budget or the invalidations but the pipeline", () => {
    expect(DOOR_FILES.length).toBeGreaterThan(50);
    expect(DOOR_FILES).toEqual(expect.arrayContaining([PIPELINE, ...Object.keys(DOORS)]));
    const byHand = DOOR_FILES.filter((file) => file !== PIPELINE).flatMap((file) => {
      const names = identifiers(file);
      return STEPS.filter((step) => names.has(step)).map((step) => `${file}: ${step}`);
    });
    expect(byHand).toEqual([]);
  });
});
