import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import type { EscrowCode } from "@/lib/escrow/format";
import { startApp, type RunningApp } from "@/server/app-process";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { runCommand } from "../support/command";
import { rawRequest } from "../support/http";

const SHORT_HOST = "s.test.example";
const APP_HOST = "app.test.example";
const CLI_TIMEOUT_MS = 60_000;

let front: RunningApp;
let proxy: RunningApp;
let directory = "";
let token = "";
let customHost = "";

/** A workspace with a code of every kind the doors treat differently. */
async function seedLinks(): Promise<void> {
  const user = await newUser("escrow-serve");
  token = user.token;
  const make = async (destination: string, extra: Record<string, unknown> = {}, status = 0) => {
    const made = await call("POST", "/api/links", { token, body: { destination, ...extra } });
    expect(made.status, made.text).toBe(201);
    await db().link.update({ where: { id: made.body.id }, data: { status, ...(status === 2 && { abuseReason: "phishing" }) } });
    return made.body.id as string;
  };
  await make("https://example.com/active?ref=poster");
  await make("https://example.com/new", {}, 1);
  await make("https://example.com/bad", {}, 2);
  const archived = await make("https://example.com/archived");
  await call("DELETE", `/api/links/${archived}`, { token });
  customHost = `go-${user.userId.toLowerCase()}.example.org`;
  const domain = await db().domain.create({
    data: { id: newId("dom"), workspaceId: user.workspaceId, hostname: customHost, verifiedAt: new Date() },
  });
  await make("https://example.com/custom", { domain_id: domain.id, slug: "Spring-Menu" });
  const routed = await make("https://example.com/routed");
  const rules = [{ when: { language: ["fr"] }, destination: "https://example.com/fr" }];
  expect((await call("PATCH", `/api/links/${routed}`, { token, body: { rules } })).status).toBe(200);
  // A scheduled change whose time has come while nobody visited: both sides send visitors to it.
  const scheduled = await make("https://example.com/before");
  await db().link.update({
    where: { id: scheduled },
    data: { schedule: [{ at: Date.now() - 60_000, destination: "https://example.com/after" }], status: 0 },
  });
  await make("https://example.com/staff", { password: "staff only" });
}

beforeAll(async () => {
  await seedLinks();
  directory = await mkdtemp(join(tmpdir(), "permalink-escrow-serve-"));
  const env = {
    DATABASE_URL: process.env.DATABASE_URL,
    AUTH_SECRET: process.env.AUTH_SECRET,
    DNS_RESOLVER: process.env.DNS_RESOLVER,
    BASE_URL: `http://${APP_HOST}`,
    SHORT_BASE_URL: `http://${SHORT_HOST}`,
    RECHECK_INTERVAL_SECONDS: "0",
    ESCROW_INTERVAL_SECONDS: "0",
  };
  [front, proxy] = await Promise.all([startApp("front", env), startApp("proxy", env)]);
  await Promise.all([front, proxy].map((app) => rawRequest(app.url, "/Warmup2", { host: SHORT_HOST })));
}, 300_000);

afterAll(async () => {
  await Promise.all([front?.stop(), proxy?.stop()]);
  if (directory) await rm(directory, { recursive: true, force: true });
});

function verifier(args: string[]) {
  return runCommand("npm", ["run", "--silent", "verify-escrow", "--", ...args], { ...process.env, DATABASE_URL: "" });
}

/** `verify-escrow FILE --serve --port 0`, until it says where it serves. */
function serveEscrow(file: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn("npx", ["tsx", "scripts/verify-escrow.ts", file, "--serve", "--port", "0"], {
    env: { ...process.env, DATABASE_URL: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`verify-escrow --serve did not start: ${output}`)), CLI_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      output += chunk;
      const serving = output.match(/Serving \d+ codes as redirects at (http:\/\/\S+)/);
      if (serving) {
        clearTimeout(timer);
        resolve({ child, url: serving[1]! });
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => reject(new Error(`verify-escrow --serve exited with ${code}: ${output}`)));
  });
}

async function download(): Promise<{ file: string; keys: string; text: string }> {
  const escrow = await rawRequest(front.url, "/api/escrow", { host: APP_HOST, headers: { authorization: `Bearer ${token}` } });
  expect(escrow.status, escrow.body).toBe(200);
  expect(escrow.headers["content-type"]).toBe("application/jsonl");
  const wellKnown = await rawRequest(proxy.url, "/.well-known/permalink-escrow.json", { host: APP_HOST });
  expect(wellKnown.status, wellKnown.body).toBe(200);
  const file = join(directory, "workspace.jsonl");
  const keys = join(directory, "keys.json");
  await writeFile(file, escrow.body);
  await writeFile(keys, wellKnown.body);
  return { file, keys, text: escrow.body };
}

describe("the escrow, verified and served without the service", () => {
  it(
    "exports, verifies and serves every code of a workspace as the live service redirects it, through both doors",
    async () => {
      const { file, keys, text } = await download();
      const codes = text
        .trim()
        .split("\n")
        .slice(1, -1)
        .map((line) => JSON.parse(line) as EscrowCode);
      expect(codes).toHaveLength(8);

      const verified = await verifier([file, "--keys", keys]);
      expect(verified.stderr).toBe("");
      expect(verified.exitCode).toBe(0);
      expect(verified.stdout).toMatch(
        /^Verified: 8 codes of workspace \S+ at http:\/\/app\.test\.example, snapshot of \S+, each once, signed by key \S+\.\n$/,
      );

      const { child, url } = await serveEscrow(file);
      try {
        const compared: string[] = [];
        for (const code of codes) {
          const paths = [`/${code.slug}`, `/${code.slug}?utm_source=flyer&qr=1`, `/${code.slug.toUpperCase()}`];
          for (const path of paths) {
            const fromEscrow = await rawRequest(url, path, { host: code.host });
            for (const door of [front, proxy]) {
              const live = await rawRequest(door.url, path, { host: code.host });
              expect({ path, host: code.host, status: fromEscrow.status, location: fromEscrow.headers.location }).toEqual({
                path,
                host: code.host,
                status: live.status,
                location: live.headers.location,
              });
            }
            compared.push(`${fromEscrow.status} ${fromEscrow.headers.location ?? ""}`);
          }
        }
        // Every kind the service answers differently was compared: redirects (archived and scheduled included), the block, the password.
        expect(new Set(compared.map((entry) => entry.split(" ")[0]))).toEqual(new Set(["302", "403", "401"]));
        expect(compared).toContain("302 https://example.com/after");
        expect(compared).toContain("302 https://example.com/active?ref=poster&utm_source=flyer");
        expect(compared).toContain("302 https://example.com/custom");
        const unknown = await rawRequest(url, "/Unknown9", { host: SHORT_HOST });
        expect(unknown.status).toBe((await rawRequest(front.url, "/Unknown9", { host: SHORT_HOST })).status);
      } finally {
        child.kill();
      }
    },
    CLI_TIMEOUT_MS * 3,
  );

  it(
    "refuses a forged or truncated file with a sentence and exit status 1, and serves nothing from it",
    async () => {
      const { file, keys, text } = await download();
      const forged = join(directory, "forged.jsonl");
      await writeFile(forged, text.replace("https://example.com/custom", "https://evil.example/custom"));
      const truncated = join(directory, "truncated.jsonl");
      await writeFile(truncated, text.slice(0, Math.floor(text.length * 0.6)));

      const forgedRun = await verifier([forged, "--keys", keys]);
      expect(forgedRun).toMatchObject({
        exitCode: 1,
        stdout: "",
        stderr: "Not verified: The file's contents do not match its signature line: a line was changed after it was signed.\n",
      });
      const truncatedRun = await verifier([truncated, "--serve", "--port", "0"]);
      expect(truncatedRun.exitCode).toBe(1);
      expect(truncatedRun.stderr).toMatch(
        /^Not verified: The file is truncated: line \d+ stops part-way, before the signature line \(\d+ codes were read whole\)\.\n$/,
      );
      expect(truncatedRun.stdout).not.toContain("Serving");
      expect(await readFile(file, "utf8")).toBe(text);
    },
    CLI_TIMEOUT_MS * 2,
  );
});
