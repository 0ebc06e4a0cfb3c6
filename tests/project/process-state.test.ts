import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/import-graph";

/**
 * One style of process state: long-lived values through processSingleton (lib/process-singleton.ts),
 * configuration through config() (lib/config), and no write to process.env while the app runs.
 * The production server (server/) is held to the same rules; scripts/, tests/, bench/ and e2e/
 * prepare environments and are not scanned.
 */
const APP_FILES = [...["app", "components", "lib", "server"].flatMap(sourceFiles), "proxy.ts", "instrumentation.ts"].filter(
  (file) => !file.endsWith(".test.ts"),
);

const ENV_WRITE =
  /(?:\bdelete\s+process\.env\b|\bObject\.assign\(\s*process\.env\b|\bprocess\.env(?:\.(\w+)|\[[^\]]+\])\s*(?:=(?!=)|\?\?=|\|\|=|&&=))/g;

/**
 * process.env read anywhere but in the configuration, the logger (it must speak before
 * configuration is valid), Next's start hook, and the server where it hands the environment on
 * whole to a child process (the application process, a built app under test) or drops tcsh's HOST
 * before configuration reads it.
 */
const ENV_READERS = [
  "lib/config/index.ts",
  "lib/log/index.ts",
  "instrumentation.ts",
  "server/application.ts",
  "server/app-process.ts",
  "server/boot.ts",
  "server/embedded-database.ts",
];

/** A line of a code sample the docs pages show (inside a template string), not code that runs. */
const isCodeSample = (line: string) => line.trimStart().startsWith("`");

function linesOf(file: string): { file: string; line: string }[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => ({ file, line }));
}

function envWrites(text: string): string[] {
  return [...text.matchAll(ENV_WRITE)].map((match) => match[1] ?? match[0]);
}

describe("process state", () => {
  it("recognises every way of writing process.env", () => {
    expect(
      envWrites(
        "process.env.A = 1; process.env.B ??= x; process.env['C'] = y; delete process.env.D; Object.assign(process.env, e);",
      ),
    ).toEqual(["A", "B", "process.env['C'] =", "delete process.env", "Object.assign(process.env"]);
    expect(envWrites("if (process.env.A === 'x' || process.env.B == null) use(process.env.C);")).toEqual([]);
  });

  it("writes process.env only in Next's start hook, for next-auth's origin, and where the server starts", () => {
    const writes = APP_FILES.flatMap((file) => envWrites(readFileSync(file, "utf8")).map((name) => `${file}: ${name}`));
    // Before anything reads the configuration: tcsh's HOST (the machine's name) dropped, and the
    // embedded database's data folder, which @prisma/dev takes only from XDG_DATA_HOME.
    expect(writes.sort()).toEqual([
      "instrumentation.ts: NEXTAUTH_URL",
      "server/boot.ts: delete process.env",
      "server/embedded-database.ts: XDG_DATA_HOME",
    ]);
  });

  it("reads the environment only through config()", () => {
    const readers = APP_FILES.filter((file) => !ENV_READERS.includes(file))
      .flatMap(linesOf)
      .filter(({ line }) => /\bprocess\.env\b/.test(line) && !isCodeSample(line))
      .map(({ file, line }) => `${file}: ${line.trim()}`);
    expect(readers).toEqual([]);
  });

  it("keeps long-lived values in processSingleton, not in module variables or on globalThis", () => {
    const holders = APP_FILES.filter((file) => file !== "lib/process-singleton.ts")
      .flatMap(linesOf)
      .filter(
        ({ line }) =>
          /^(?:export )?let /.test(line) ||
          /\bglobalThis\b|\bSymbol\.for\(/.test(line) ||
          /^(?:export )?const [a-z]\w*(?::[^=]+)? = new (?:Map|Set|WeakMap|LRUCache)\b/.test(line),
      )
      .map(({ file, line }) => `${file}: ${line.trim()}`);
    expect(holders).toEqual([]);
  });
});
