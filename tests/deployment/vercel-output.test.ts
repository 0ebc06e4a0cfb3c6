import { config as proxyConfig } from "@/proxy";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The deployment artifact `vercel build` writes (scripts/vercel-build.sh; .ci/run runs it, then
 * this file with VERCEL_OUTPUT_REQUIRED=1). Elsewhere it is read when present, from a local build.
 */
const OUTPUT = ".vercel/output";
const FUNCTIONS = path.join(OUTPUT, "functions");
/** Vercel's limit on a function's size, unzipped, files it references included. */
const VERCEL_FUNCTION_LIMIT_BYTES = 250 * 1000 * 1000;
/** Room to spare: at most half the limit (the largest measured 50 MB, in docs/operations.md). */
const FUNCTION_BUDGET_BYTES = VERCEL_FUNCTION_LIMIT_BYTES / 2;

type Route = { src?: string; middlewarePath?: string; middlewareRawSrc?: string[] };
type OutputConfig = { routes: Route[]; crons?: { path: string; schedule: string }[] };
type FunctionConfig = { runtime: string; maxDuration?: number; filePathMap?: Record<string, string> };

const required = Boolean(process.env.VERCEL_OUTPUT_REQUIRED);

describe.runIf(required || existsSync(OUTPUT))("the Vercel build output", () => {
  const output = () => JSON.parse(readFileSync(path.join(OUTPUT, "config.json"), "utf8")) as OutputConfig;
  const functionConfig = (directory: string) =>
    JSON.parse(readFileSync(path.join(directory, ".vc-config.json"), "utf8")) as FunctionConfig;

  it("runs proxy.ts as a Node function in front of the paths its matcher names, and no others", () => {
    const proxyRoutes = output().routes.filter((route) => route.middlewarePath === "/_middleware");
    expect(proxyRoutes.flatMap((route) => route.middlewareRawSrc)).toEqual(proxyConfig.matcher);
    expect(functionConfig(path.join(FUNCTIONS, "_middleware.func")).runtime).toBe("nodejs24.x");

    const proxied = (pathname: string) => proxyRoutes.some((route) => new RegExp(route.src!).test(pathname));
    // Every path but Next's assets: the proxy refuses the application on hosts that serve short links only (ADR 0005).
    for (const pathname of ["/abc2345", "/menu-2026", "/api/links/%zz", "/api/links", "/api/health", "/dashboard"])
      expect(proxied(pathname), pathname).toBe(true);
    for (const pathname of ["/_next/static/chunks/main.js", "/_next/image"]) expect(proxied(pathname), pathname).toBe(false);
  });

  it("registers every cron of vercel.json, each served by a function", () => {
    const { crons } = JSON.parse(readFileSync("vercel.json", "utf8")) as Required<Pick<OutputConfig, "crons">>;
    expect(crons.length).toBeGreaterThan(0);
    expect(output().crons).toEqual(crons);
    for (const cron of crons) expect(existsSync(path.join(FUNCTIONS, `${cron.path}.func`)), cron.path).toBe(true);
  });

  it("gives the jobs that run longest the minute their route asks for", () => {
    for (const job of ["/api/cron/webhooks", "/api/cron/scan-retention"])
      expect(functionConfig(path.join(FUNCTIONS, `${job}.func`)).maxDuration, job).toBe(60);
  });

  it("keeps every function under half of Vercel's 250 MB limit, files it references included", () => {
    const sizes = distinctFunctions().map((directory) => ({ directory, bytes: functionBytes(directory) }));
    expect(sizes.length).toBeGreaterThan(0);
    expect(sizes.filter(({ bytes }) => bytes > FUNCTION_BUDGET_BYTES)).toEqual([]);
  });

  /** Every .func directory, once: Vercel's Next builder links many routes to one function. */
  function distinctFunctions(): string[] {
    const found = new Set<string>();
    const visit = (directory: string) => {
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        const entryPath = path.join(directory, entry.name);
        if (entry.name.endsWith(".func")) found.add(realpathSync(entryPath));
        else if (entry.isDirectory()) visit(entryPath);
      }
    };
    visit(FUNCTIONS);
    return [...found];
  }

  /** The function's own files plus those its filePathMap takes from the project (node_modules, .next). */
  function functionBytes(directory: string): number {
    const referenced = Object.values(functionConfig(directory).filePathMap ?? {});
    return directoryBytes(directory) + referenced.reduce((total, file) => total + statSync(file).size, 0);
  }

  function directoryBytes(directory: string): number {
    return readdirSync(directory, { withFileTypes: true }).reduce((total, entry) => {
      const entryPath = path.join(directory, entry.name);
      return total + (entry.isDirectory() ? directoryBytes(entryPath) : statSync(entryPath).size);
    }, 0);
  }
});
