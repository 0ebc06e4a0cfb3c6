import { clock } from "@/lib/clock";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { codePath } from "@/lib/links/slugs";
import { startApp, type RunningApp } from "@/server/app-process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { testAppEnv } from "../support/app-env";
import { rawRequest } from "../support/http";

/**
 * Every peer's own file (tests/fixtures/imports/peers/, shaped as each peer writes it) imported onto
 * a verified domain, then every printed code visited on that domain through both doors (`npm
 * start`'s front door and `next start`'s proxy.ts), as browsers send it and in its other forms
 * (ADR 0007): each redirects exactly as printed.
 */
const PEERS: [file: string, type: string][] = [
  ["bitly-api-page.json", "application/json"],
  ["dub-export.csv", "text/csv"],
  ["dub-api-links.json", "application/json"],
  ["rebrandly-api-links.json", "application/json"],
  ["shortio-api-links.json", "application/json"],
  ["shlink-export.csv", "text/csv"],
  ["shlink-rest-page.json", "application/json"],
  ["kutt-api-links.json", "application/json"],
];

let front: RunningApp;
let proxy: RunningApp;

beforeAll(async () => {
  const env = {
    ...testAppEnv(),
    BASE_URL: "http://app.test.example",
    SHORT_BASE_URL: "http://s.test.example",
    RECHECK_INTERVAL_SECONDS: "0",
  };
  [front, proxy] = await Promise.all([startApp("front", env), startApp("proxy", env)]);
  await Promise.all([front, proxy].map((app) => rawRequest(app.url, "/Warmup2", { host: "s.test.example" })));
}, 300_000);

afterAll(async () => {
  await Promise.all([front?.stop(), proxy?.stop()]);
});

async function verifiedDomain(user: TestUser): Promise<string> {
  const hostname = `go-${randomString("abcdefghijkmnpqrstuvwxyz", 8)}.printed-test.com`;
  await db().domain.create({
    data: { id: newId("dom"), workspaceId: user.workspaceId, hostname, verifiedAt: new Date(clock().now()) },
  });
  return hostname;
}

async function importFile(user: TestUser, body: string, type: string): Promise<void> {
  const started = await call("POST", "/api/imports", { token: user.token, rawBody: body, headers: { "content-type": type } });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  for (let attempt = 0; attempt < 1200; attempt++) {
    const job = await call("GET", `/api/imports/${started.body.id}`, { token: user.token });
    if (job.body.status === "done") return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`import ${started.body.id} did not finish`);
}

/** The forms a visitor's path may take for one code: as browsers send it, decomposed, with `.` and `~` escaped. */
function formsOf(slug: string): string[] {
  const sent = codePath(slug);
  const forms = new Set([sent, codePath(slug.normalize("NFD")), sent.replaceAll(".", "%2E").replaceAll("~", "%7E")]);
  return [...forms];
}

describe("every printed code of every peer's file redirects from its own host through both doors", () => {
  it.each(PEERS)("%s", async (file, type) => {
    const user = await newUser();
    const hostname = await verifiedDomain(user);
    await importFile(user, readFileSync(`tests/fixtures/imports/peers/${file}`, "utf8").replaceAll("go.DOMAIN", hostname), type);
    const links = await db().link.findMany({
      where: { workspaceId: user.workspaceId, host: hostname },
      select: { slug: true, destination: true, passwordHash: true },
    });
    const printed = readFileSync(`tests/fixtures/imports/peers/${file}`, "utf8");
    // Every code the file printed on the domain (bar its root) became a link there.
    expect(links.length).toBeGreaterThanOrEqual(new Set(printed.match(/go\.DOMAIN\/[^"?,\s]+/g) ?? []).size);
    for (const link of links) {
      for (const path of formsOf(link.slug)) {
        for (const app of [front, proxy]) {
          const answer = await rawRequest(app.url, path, { host: hostname });
          const expected = link.passwordHash ? { status: 401 } : { status: 302, headers: { location: link.destination } };
          expect({ path, door: app === front ? "front" : "proxy", ...answer }).toMatchObject(expected);
        }
      }
    }
  });
});
