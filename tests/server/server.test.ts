import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintSessionToken } from "@/lib/auth/session-tokens";

const BUILD_TIMEOUT_MS = 240_000;
const STARTUP_TIMEOUT_MS = 60_000;
const SHUTDOWN_TIMEOUT_MS = 15_000;
const REQUEST_TIMEOUT_MS = 30_000;

/** What the server process is given: this file's database and secrets, nothing else from the test runner. */
const SERVER_ENV_FROM_TEST = ["PATH", "HOME", "DATABASE_URL", "DATABASE_POOL_SIZE", "AUTH_SECRET", "DNS_RESOLVER"] as const;

let server: ChildProcess;
let serverOutput = "";
let baseUrl: string;

function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = SERVER_ENV_FROM_TEST.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]);
  return { ...Object.fromEntries(inherited), NODE_ENV: "production", ...extra };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

async function buildIfMissing(): Promise<void> {
  if (existsSync(".next/BUILD_ID")) return;
  const build = spawn("npx", ["next", "build"], { env: serverEnv({}), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  build.stdout!.on("data", (chunk: Buffer) => (output += chunk));
  build.stderr!.on("data", (chunk: Buffer) => (output += chunk));
  if ((await exitOf(build)) !== 0) throw new Error(`next build failed:\n${output}`);
}

async function waitUntilAnswering(url: string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`The server exited with ${server.exitCode}:\n${serverOutput}`);
    const answered = await fetch(url).then(() => true, () => false);
    if (answered) return;
    await sleep(250);
  }
  throw new Error(`The server did not answer within ${STARTUP_TIMEOUT_MS} ms:\n${serverOutput}`);
}

/** SIGTERM, then a clean exit (code 0) within SHUTDOWN_TIMEOUT_MS; SIGKILL and fail otherwise. */
async function stopServer(): Promise<void> {
  const exited = exitOf(server);
  server.kill("SIGTERM");
  const timedOut = Symbol("timed out");
  const exitCode = await Promise.race([exited, sleep(SHUTDOWN_TIMEOUT_MS).then(() => timedOut)]);
  if (exitCode === timedOut) {
    server.kill("SIGKILL");
    await exited;
    throw new Error(`The server ignored SIGTERM for ${SHUTDOWN_TIMEOUT_MS} ms:\n${serverOutput}`);
  }
  if (exitCode !== 0) throw new Error(`The server exited with ${String(exitCode)} on SIGTERM:\n${serverOutput}`);
}

function apiRequest(method: string, path: string, options: { token?: string; body?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${baseUrl}${path}`, { method, headers, body: options.body });
}

function expectJson(response: Response): void {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
}

beforeAll(async () => {
  await buildIfMissing();
  const port = await freePort();
  baseUrl = `http://localhost:${port}`;
  server = spawn("node_modules/.bin/tsx", ["scripts/start.ts"], { env: serverEnv({ PORT: String(port) }), stdio: ["ignore", "pipe", "pipe"] });
  server.stdout!.on("data", (chunk: Buffer) => (serverOutput += chunk));
  server.stderr!.on("data", (chunk: Buffer) => (serverOutput += chunk));
  await waitUntilAnswering(`${baseUrl}/api/openapi.json`);
}, BUILD_TIMEOUT_MS + STARTUP_TIMEOUT_MS);

afterAll(async () => {
  if (server) await stopServer();
}, SHUTDOWN_TIMEOUT_MS + 5_000);

describe("the production server over HTTP", () => {
  it("creates a link for a session token (201 JSON) and lists it", async () => {
    const token = await mintSessionToken(`server-${process.pid}@example.com`);

    const created = await apiRequest("POST", "/api/links", { token, body: JSON.stringify({ destination: "https://example.com/over-http" }) });

    expect(created.status).toBe(201);
    expectJson(created);
    const link = await created.json();
    expect(link).toMatchObject({ destination: "https://example.com/over-http", short_url: `${baseUrl}/${link.slug}` });

    const listed = await apiRequest("GET", "/api/links", { token });
    expect(listed.status).toBe(200);
    expect((await listed.json()).links.map((item: { id: string }) => item.id)).toContain(link.id);
  }, REQUEST_TIMEOUT_MS);

  it("answers an unknown /api path with 404 JSON", async () => {
    const response = await apiRequest("GET", "/api/no-such-operation");

    expect(response.status).toBe(404);
    expectJson(response);
    expect(await response.json()).toEqual({ error: expect.stringContaining("/api/no-such-operation") });
  }, REQUEST_TIMEOUT_MS);

  it("answers a malformed JSON body with 400 JSON", async () => {
    const token = await mintSessionToken(`server-${process.pid}@example.com`);

    const response = await apiRequest("POST", "/api/links", { token, body: '{"destination": ' });

    expect(response.status).toBe(400);
    expectJson(response);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/not valid JSON/) });
  }, REQUEST_TIMEOUT_MS);

  it("serves the OpenAPI 3.1 description, version 2026-08-21, for its own address", async () => {
    const response = await apiRequest("GET", "/api/openapi.json");

    expect(response.status).toBe(200);
    expectJson(response);
    const document = await response.json();
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.version).toBe("2026-08-21");
    expect(document.servers[0].url).toBe(baseUrl);
    expect(document.paths["/api/links"].post).toBeDefined();
  }, REQUEST_TIMEOUT_MS);

  it("serves the API reference page as HTML", async () => {
    const response = await fetch(`${baseUrl}/docs`);

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain("<code>/api/links</code>");
    expect(html).toContain("2026-08-21");
  }, REQUEST_TIMEOUT_MS);

  it("serves the home page", async () => {
    const response = await fetch(baseUrl);

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
  }, REQUEST_TIMEOUT_MS);
});
