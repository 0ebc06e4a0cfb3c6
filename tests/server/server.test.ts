import { mintSessionToken } from "@/lib/auth/session-tokens";
import { db } from "@/lib/db/client";
import { startApp, type RunningApp } from "@/server/app-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../support/api";
import { testAppEnv } from "../support/app-env";
import { colourAt, decodeQr, pixelsOf, solidImage } from "../support/images";

const REQUEST_TIMEOUT_MS = 30_000;

let app: RunningApp;
let baseUrl: string;

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
  app = await startApp("front", testAppEnv());
  baseUrl = `http://localhost:${app.port}`;
}, 300_000);

afterAll(async () => {
  expect(await app?.stop(), "the server exits cleanly on SIGTERM").toBe(0);
}, 20_000);

describe("the production server over HTTP", () => {
  it(
    "creates a link for a subscribed user's session token (201 JSON) and lists it",
    async () => {
      const { token } = await newUser("server");

      const created = await apiRequest("POST", "/api/links", {
        token,
        body: JSON.stringify({ destination: "https://example.com/over-http" }),
      });

      expect(created.status).toBe(201);
      expectJson(created);
      const link = await created.json();
      expect(link).toMatchObject({ destination: "https://example.com/over-http", short_url: `${baseUrl}/${link.slug}` });

      const listed = await apiRequest("GET", "/api/links", { token });
      expect(listed.status).toBe(200);
      expect((await listed.json()).links.map((item: { id: string }) => item.id)).toContain(link.id);
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "answers an unknown /api path with 404 JSON",
    async () => {
      const response = await apiRequest("GET", "/api/no-such-operation");

      expect(response.status).toBe(404);
      expectJson(response);
      expect(await response.json()).toEqual({ error: expect.stringContaining("/api/no-such-operation") });
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "answers a malformed JSON body with 400 JSON",
    async () => {
      const token = await mintSessionToken(`server-${process.pid}@example.com`);

      const response = await apiRequest("POST", "/api/links", { token, body: '{"destination": ' });

      expect(response.status).toBe(400);
      expectJson(response);
      expect(await response.json()).toEqual({ error: expect.stringMatching(/not valid JSON/) });
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "serves the OpenAPI 3.1 description, version 2026-08-21, for its own address",
    async () => {
      const response = await apiRequest("GET", "/api/openapi.json");

      expect(response.status).toBe(200);
      expectJson(response);
      const document = await response.json();
      expect(document.openapi).toMatch(/^3\.1\.\d+$/);
      expect(document.info.version).toBe("2026-08-21");
      expect(document.servers[0].url).toBe(baseUrl);
      expect(document.paths["/api/links"].post).toBeDefined();
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "serves the API reference page as HTML",
    async () => {
      const response = await fetch(`${baseUrl}/docs`);

      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      const html = await response.text();
      expect(html).toContain("<code>/api/links</code>");
      expect(html).toContain("2026-08-21");
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "draws QR artwork with a stored logo (react-dom/server and sharp in the built app), and a scan of it redirects as a QR scan",
    async () => {
      const { token } = await newUser("server-qr");
      const link = await (
        await apiRequest("POST", "/api/links", { token, body: JSON.stringify({ destination: "https://example.com/printed" }) })
      ).json();
      const logo = await fetch(`${baseUrl}/api/links/${link.id}/logo`, {
        method: "PUT",
        headers: { authorization: `Bearer ${token}`, "content-type": "image/png" },
        body: new Uint8Array(await solidImage("png", 200, 200, "#d02020")),
      });
      expect(logo.status).toBe(200);

      for (const format of ["svg", "png"]) {
        const response = await apiRequest("GET", `/api/links/${link.id}/qr?format=${format}&logo=true`, { token });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe(format === "svg" ? "image/svg+xml" : "image/png");
        const image = Buffer.from(await response.arrayBuffer());
        expect(await decodeQr(image)).toBe(`${link.short_url}?qr`);
        const pixels = await pixelsOf(image);
        expect(colourAt(pixels, pixels.width / 2, pixels.height / 2).slice(0, 3)).toEqual([0xd0, 0x20, 0x20]);
      }

      const scanned = await fetch(`${link.short_url}?qr`, { redirect: "manual" });
      expect(scanned.status).toBe(302);
      expect(scanned.headers.get("location")).toBe("https://example.com/printed");
      await expect
        .poll(() => db().scanEvent.findMany({ where: { linkId: link.id }, select: { viaQr: true } }), { timeout: 5000 })
        .toEqual([{ viaQr: true }]);
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "serves the home page",
    async () => {
      const response = await fetch(baseUrl);

      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    },
    REQUEST_TIMEOUT_MS,
  );
});

describe("shutting down", () => {
  it("writes the scans still buffered when the server receives SIGTERM", async () => {
    const instance = await startApp("front", testAppEnv());
    const { token } = await newUser("shutdown");
    const created = await fetch(`${instance.url}/api/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ destination: "https://example.com/last-scan" }),
    });
    const link = await created.json();
    const visits = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`http://localhost:${instance.port}/${link.slug}`, { redirect: "manual" })),
    );
    expect(visits.map((response) => response.status)).toEqual([302, 302, 302, 302, 302]);
    expect(await instance.stop()).toBe(0);
    expect((await db().scanEvent.aggregate({ where: { linkId: link.id }, _sum: { scans: true } }))._sum.scans).toBe(5);
  }, 60_000);
});
