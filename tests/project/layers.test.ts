import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { cycles, importsOf, sourceFiles } from "../support/import-graph";
import { CAPABILITIES, FLOOR, ROOF } from "../support/layers";

/** Prisma's model delegates as code names them (`db().link`, `tx.scanRollup`), from the schema. */
const MODELS = [...readFileSync("prisma/schema.prisma", "utf8").matchAll(/^model (\w+) \{/gm)].map(
  (match) => match[1]![0]!.toLowerCase() + match[1]!.slice(1),
);

/** What touching the database looks like: the client or pool imported, a model queried, raw SQL run or written, a transaction opened. */
const DATABASE_ACCESS = [
  /import\s*\{[^}]*\b(?<!type )db\b[^}]*\}\s*from\s*"@\/lib\/db\/client"/,
  /import\s*\{[^}]*\bpool\b[^}]*\}\s*from\s*"@\/lib\/db\/pool"/,
  new RegExp(
    `\\.(?:${MODELS.join("|")})\\s*\\.\\s*(?:find\\w*|create\\w*|update\\w*|upsert|delete\\w*|count|aggregate|groupBy)\\(`,
  ),
  /\.\$(?:queryRaw|executeRaw|transaction)\w*\b/,
  /\bPrisma\.(?:sql|raw|join)\b/,
];

const LIB_FILES = sourceFiles("lib").filter((file) => !file.endsWith(".test.ts"));

/** lib/links/service.ts → links; a file directly in lib/ is its own folder: lib/clock.ts → clock. */
function folderOf(file: string): string {
  return file.split("/")[1]!.replace(/\.tsx?$/, "");
}

/** Folder → the lib/ folders its files import. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of LIB_FILES) {
    const from = folderOf(file);
    const targets = graph.get(from) ?? new Set<string>();
    graph.set(from, targets);
    for (const imported of importsOf(file)) {
      if (imported.startsWith("lib/") && folderOf(imported) !== from) targets.add(folderOf(imported));
    }
  }
  return graph;
}

function fileGraph(): Map<string, Set<string>> {
  return new Map(LIB_FILES.map((file) => [file, new Set(importsOf(file).filter((imported) => imported.startsWith("lib/")))]));
}

/** A capability's data access: its store.ts, or the files of its store/ folder when that is split by job (lib/analytics/store/). */
const STORE_FILE = /^lib\/[a-z-]+\/(?:store\.ts|store\/[a-z-]+\.ts)$/;

describe("the layers of lib/", () => {
  it("has no import cycle between folders", () => {
    expect(cycles(folderGraph())).toEqual([]);
  });

  it("has no import cycle between files, type-only imports included", () => {
    expect(cycles(fileGraph())).toEqual([]);
  });

  it("keeps the floor free of capabilities", () => {
    const upward = [...folderGraph()]
      .filter(([folder]) => FLOOR.includes(folder))
      .flatMap(([folder, targets]) =>
        [...targets].filter((target) => !FLOOR.includes(target)).map((target) => `${folder} → ${target}`),
      );
    expect(upward).toEqual([]);
  });

  it("names every folder of lib/ as floor, capability or roof", () => {
    const unplaced = [...folderGraph().keys()].filter((folder) => ![...FLOOR, ...CAPABILITIES, ...ROOF].includes(folder));
    expect(unplaced).toEqual([]);
  });

  it("has capabilities import each other downward only", () => {
    const upward = [...folderGraph()]
      .filter(([folder]) => CAPABILITIES.includes(folder))
      .flatMap(([folder, targets]) =>
        [...targets]
          .filter((target) => CAPABILITIES.indexOf(target) >= 0 && CAPABILITIES.indexOf(target) < CAPABILITIES.indexOf(folder))
          .map((target) => `${folder} → ${target}`),
      );
    expect(upward).toEqual([]);
  });

  it("imports the roof from nowhere below it", () => {
    const intoRoof = [...folderGraph()]
      .filter(([folder]) => !ROOF.includes(folder))
      .flatMap(([folder, targets]) =>
        [...targets].filter((target) => ROOF.includes(target)).map((target) => `${folder} → ${target}`),
      );
    expect(intoRoof).toEqual([]);
  });

  it("announces a change to a link from one place, linkChanged in lib/links/changes.ts", () => {
    const elsewhere = [...sourceFiles("lib"), ...sourceFiles("app"), ...sourceFiles("server"), ...sourceFiles("scripts")].filter(
      (file) => !file.endsWith(".test.ts") && file !== "lib/links/changes.ts",
    );
    // The cache's half: a link's invalidation published anywhere else.
    const invalidating = elsewhere.filter((file) =>
      /publishInvalidation\(\s*\{\s*kind:\s*"link"/.test(readFileSync(file, "utf8")),
    );
    expect(invalidating).toEqual([]);
    // The webhook's half: a link change's event named anywhere but its catalogue, so no one can write it beside the funnel.
    const LINK_CHANGE_EVENTS = /"link\.(?:created|updated|archived|restored|status_changed)"/;
    const naming = elsewhere
      .filter((file) => file !== "lib/webhooks/events.ts" && !file.startsWith("app/dashboard/settings/webhooks/"))
      .filter((file) => LINK_CHANGE_EVENTS.test(readFileSync(file, "utf8")));
    expect(naming).toEqual([]);
  });

  it("touches the database only in a capability's store.ts (or store/ folder) and lib/db/", () => {
    const touching = [
      ...sourceFiles("lib"),
      ...sourceFiles("app"),
      ...sourceFiles("server"),
      ...sourceFiles("scripts"),
      "proxy.ts",
    ]
      .filter((file) => !file.endsWith(".test.ts") && !file.startsWith("lib/db/") && !STORE_FILE.test(file))
      .filter((file) => DATABASE_ACCESS.some((pattern) => pattern.test(readFileSync(file, "utf8"))));
    expect(touching).toEqual([]);
  });

  it("keeps the production server (server/) and the tools (scripts/) out of what the app and lib/ import", () => {
    const app = [...sourceFiles("lib"), ...sourceFiles("app"), ...sourceFiles("components"), "proxy.ts", "instrumentation.ts"];
    const reaching = app
      .filter((file) => !file.endsWith(".test.ts"))
      .flatMap((file) => importsOf(file).map((imported) => `${file} → ${imported}`))
      .filter((edge) => / → (?:server|scripts)\//.test(edge));
    expect(reaching).toEqual([]);
    // The server runs what scripts/ starts, never the other way round.
    const upward = sourceFiles("server").flatMap((file) =>
      importsOf(file)
        .filter((imported) => imported.startsWith("scripts/"))
        .map((imported) => `${file} → ${imported}`),
    );
    expect(upward).toEqual([]);
  });

  it("keeps the typed client apart: sdk/ imports only itself and openapi-fetch, so it can be copied out whole", () => {
    const outside = sourceFiles("sdk").flatMap((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
      return importedFiles
        .map(({ fileName }) => fileName)
        .filter((specifier) => !/^\.\/[\w-]+$/.test(specifier) && specifier !== "openapi-fetch")
        .map((specifier) => `${file} → ${specifier}`);
    });
    expect(sourceFiles("sdk").length).toBeGreaterThan(0);
    expect(outside).toEqual([]);
  });

  it("keeps test helpers out of lib/", () => {
    const helpers = sourceFiles("lib").filter((file) => /test-support|\/testing\/|fixtures?\./.test(file));
    expect(helpers).toEqual([]);
  });
});
