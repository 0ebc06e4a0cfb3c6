import { JOBS } from "@/lib/api/jobs";
import { HTTP_METHODS, type OperationSpec, type RouteSpec } from "@/lib/http/operation";
import { openApiDocument, OPERATIONS, operationsIn } from "@/lib/openapi/document";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/import-graph";

type RouteModule = Record<string, unknown>;

const API_ROUTES = import.meta.glob<RouteModule>("/app/api/**/route.ts", { eager: true });
const OTHER_ROUTES = import.meta.glob<RouteModule>(["/app/**/route.ts", "!/app/api/**"], { eager: true });
const OPERATION_MODULES = import.meta.glob<Record<string, unknown>>("/lib/**/operations.ts", { eager: true });

/**
 * next-auth's route: the dashboard's sign-in protocol for browsers (forms, OAuth and magic-link
 * callbacks, its CSRF token and session cookie), answered by next-auth itself. No program calls
 * it with a credential, so it is no API operation: neither wrapped nor in the OpenAPI document.
 */
const NEXT_AUTH_ROUTE = "/api/auth/{nextauth}";

/** The API routes that are no operation: the catch-all answering 404 for unknown paths, and next-auth's. */
const UNDOCUMENTED_API_ROUTES = ["/api/{path}", NEXT_AUTH_ROUTE];

/** Routes that are not built by the wrapper: llms.txt (served to people and crawlers) and next-auth's. */
const ROUTES_OUTSIDE_THE_WRAPPER = ["/llms.txt", NEXT_AUTH_ROUTE];

/** app/api/links/[id]/route.ts → /api/links/{id}, as OpenAPI writes paths. */
function routePath(file: string): string {
  return file
    .replace(/^\/app/, "")
    .replace(/\/route\.ts$/, "")
    .replace(/\[(?:\.\.\.)?(\w+)\]/g, "{$1}");
}

/** `allow`: a handler from otherMethods (lib/api/methods.ts), answering a method the route does not serve. */
type Handler = { spec?: RouteSpec; allow?: readonly string[] };

/** The handlers that serve something: every method a route does not serve answers 405 instead. */
function handlers(modules: Record<string, RouteModule>): { path: string; method: string; handler: Handler }[] {
  return Object.entries(modules).flatMap(([file, module]) =>
    HTTP_METHODS.flatMap((method) => {
      const handler = module[method.toUpperCase()] as Handler | undefined;
      return handler && !handler.allow ? [{ path: routePath(file), method, handler }] : [];
    }),
  );
}

describe("routes and the OpenAPI document", () => {
  it("finds the route files", () => {
    expect(Object.keys(API_ROUTES).length).toBeGreaterThan(10);
  });

  it("builds every handler of every route with the route wrapper", () => {
    const unwrapped = [...handlers(API_ROUTES), ...handlers(OTHER_ROUTES)]
      .filter(({ path, handler }) => !handler.spec && !ROUTES_OUTSIDE_THE_WRAPPER.includes(path))
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(unwrapped).toEqual([]);
  });

  it("answers every method on every route: its operations, else 405 with Allow (Next's own 405 has no body), and OPTIONS", () => {
    const unanswered = Object.entries({ ...API_ROUTES, ...OTHER_ROUTES }).flatMap(([file, module]) =>
      [...HTTP_METHODS.map((method) => method.toUpperCase()), "OPTIONS"]
        .filter((method) => typeof module[method] !== "function")
        .map((method) => `${method} ${routePath(file)}`),
    );
    expect(unanswered).toEqual([]);
  });

  it("serves each route under /api with the operation declared for its path and method", () => {
    for (const { path, method, handler } of handlers(API_ROUTES)) {
      if (UNDOCUMENTED_API_ROUTES.includes(path)) continue;
      const spec = handler.spec as Partial<OperationSpec>;
      expect({ path: spec.path, method: spec.method }, `${method.toUpperCase()} ${path}`).toEqual({ path, method });
    }
  });

  it("collects every operation each capability declares, so none is left out of the document", () => {
    const declared = Object.entries(OPERATION_MODULES).flatMap(([file, module]) =>
      operationsIn(module).map((operation) => `${file}: ${operation.operationId}`),
    );
    const collected = new Set(OPERATIONS);
    const missing = Object.entries(OPERATION_MODULES).flatMap(([file, module]) =>
      operationsIn(module)
        .filter((operation) => !collected.has(operation))
        .map((operation) => `${file}: ${operation.operationId}`),
    );
    expect(declared.length).toBe(OPERATIONS.length);
    expect(missing).toEqual([]);
  });

  it("documents exactly the operations the routes serve, one to one", () => {
    const served = handlers(API_ROUTES)
      .filter(({ path }) => !UNDOCUMENTED_API_ROUTES.includes(path))
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .sort();
    const declared = OPERATIONS.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`).sort();
    const documented = Object.entries(openApiDocument().paths)
      .flatMap(([path, item]) => HTTP_METHODS.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(new Set(declared).size).toBe(declared.length);
    expect(declared).toEqual(served);
    expect(documented).toEqual(served);
  });

  it("declares every cron operation as a job, scheduled in vercel.json as the job says, and nothing else", () => {
    const scheduled = (JSON.parse(readFileSync("vercel.json", "utf8")) as { crons: { path: string; schedule: string }[] }).crons
      .map((cron) => `${cron.path} ${cron.schedule}`)
      .sort();
    const jobs = JOBS.map((job) => `${job.operation.path} ${job.cron}`).sort();
    const cronOperations = OPERATIONS.filter((operation) => operation.auth === "cron")
      .map((operation) => operation.path)
      .sort();
    expect(scheduled).toEqual(jobs);
    expect(JOBS.map((job) => job.operation.path).sort()).toEqual(cronOperations);
    // Each job's operation is the declared one (the route serves it), not a copy naming the same path.
    for (const job of JOBS) expect(OPERATIONS).toContain(job.operation);
  });

  it("names an operation by its capability, never by an alias: `import * as linkOperations`, then linkOperations.createLink", () => {
    const renamed = [...sourceFiles("app"), ...sourceFiles("lib"), ...sourceFiles("server")].filter((file) =>
      /import\s*\{[^}]*\bas\s+\w+Operation\b[^}]*\}\s*from\s*"[^"]*operations"/.test(readFileSync(file, "utf8")),
    );
    expect(renamed).toEqual([]);
  });
});
