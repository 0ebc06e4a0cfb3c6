import { pool } from "@/lib/db/pool";
import { newId, randomString } from "@/lib/db/random";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { ACTIVE, QUARANTINE } from "@/lib/links/status";
import { startApp, type RunningApp } from "@/server/app-process";
import { Agent, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { startFakeDnsServer, type FakeDnsServer } from "../support/fake-dns-server";

/**
 * The benchmark's scenarios (bench/run.ts) at correctness scale: a few hundred concurrent visits
 * through the built front door, every answer checked and every scan counted exactly. No timings.
 */
const SHORT_HOST = "s.hot.example";
const SILENT_HOST = "silent.hot.example";
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const CONNECTIONS = 20;

let app: RunningApp;
let dns: FakeDnsServer;
let workspaceId: string;
const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });

type Seeded = { id: string; slug: string; destination: string };

async function seed(status: number, destination: string): Promise<Seeded> {
  const link = { id: newId("lnk"), slug: `h${randomString(SLUG_ALPHABET, 9)}`, destination };
  await pool().query(
    "INSERT INTO links (id, workspace_id, slug, reusable, status, destination) VALUES ($1, $2, $3, false, $4, $5)",
    [link.id, workspaceId, link.slug, status, link.destination],
  );
  return link;
}

type Answer = { status: number; location: string | undefined };

function get(path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${app.url}${path}`,
      { agent, headers: { host: SHORT_HOST, "user-agent": BROWSER, accept: "text/html" } },
      (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode ?? 0, location: response.headers.location }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** `paths` visited over CONNECTIONS keep-alive connections at once, answers in order. */
async function visitAll(paths: string[]): Promise<Answer[]> {
  const answers: Answer[] = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const index = next++;
      answers[index] = await get(paths[index]!);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return answers;
}

async function scansOf(linkIds: string[]): Promise<Map<string, number>> {
  const { rows } = await pool().query<{ link_id: string; scans: string }>(
    "SELECT link_id, sum(scans) AS scans FROM scan_events WHERE link_id = ANY($1) GROUP BY link_id",
    [linkIds],
  );
  return new Map(rows.map((row) => [row.link_id, Number(row.scans)]));
}

/** Waits for the app's scan buffer to write `expected` (link id → scans), then checks nothing more arrives. */
async function expectScans(expected: Map<string, number>): Promise<void> {
  const ids = [...expected.keys()];
  const total = [...expected.values()].reduce((sum, count) => sum + count, 0);
  for (let attempt = 0; attempt < 60; attempt++) {
    const recorded = [...(await scansOf(ids)).values()].reduce((sum, count) => sum + count, 0);
    if (recorded >= total) break;
    await sleep(250);
  }
  await sleep(1500);
  const recorded = await scansOf(ids);
  expect(Object.fromEntries(ids.map((id) => [id, recorded.get(id) ?? 0]))).toEqual(Object.fromEntries(expected));
}

beforeAll(async () => {
  workspaceId = newId("ws");
  await pool().query("INSERT INTO workspaces (id, name, kind) VALUES ($1, 'Hot path', 'team')", [workspaceId]);
  dns = await startFakeDnsServer({ [SILENT_HOST]: "silent" }, { a: [TEST_ZONE.publicAddress] });
  const { DATABASE_URL, DATABASE_POOL_SIZE, AUTH_SECRET } = process.env;
  app = await startApp("front", {
    DATABASE_URL,
    DATABASE_POOL_SIZE,
    AUTH_SECRET,
    DNS_RESOLVER: dns.resolver,
    SHORT_BASE_URL: `http://${SHORT_HOST}`,
    BASE_URL: "http://app.hot.example",
    RECHECK_INTERVAL_SECONDS: "0",
  });
}, 300_000);

afterAll(async () => {
  agent.destroy();
  await app?.stop();
  await dns?.close();
});

describe("the redirect hot path under concurrent visits", () => {
  it("redirects a warm active link every time and records exactly one scan per redirect", async () => {
    const link = await seed(ACTIVE, "https://example.com/hot-active?ref=poster");
    const answers = await visitAll([
      ...Array.from({ length: 90 }, () => `/${link.slug}`),
      ...Array.from({ length: 10 }, () => `/${link.slug}?utm_medium=print`),
    ]);
    expect(answers.slice(0, 90).every((answer) => answer.status === 302 && answer.location === link.destination)).toBe(true);
    expect(
      answers.slice(90).every((answer) => answer.status === 302 && answer.location === `${link.destination}&utm_medium=print`),
    ).toBe(true);
    await expectScans(new Map([[link.id, 100]]));
  });

  it("redirects a quarantined link after its live check, counting every visit", async () => {
    const link = await seed(QUARANTINE, "https://example.com/hot-quarantined");
    const answers = await visitAll(Array.from({ length: 100 }, () => `/${link.slug}`));
    expect(answers.filter((answer) => answer.status === 302 && answer.location === link.destination)).toHaveLength(100);
    await expectScans(new Map([[link.id, 100]]));
  });

  it("fails open for a quarantined link whose destination's DNS never answers, counting every visit", async () => {
    const link = await seed(QUARANTINE, `https://${SILENT_HOST}/page`);
    const answers = await visitAll(Array.from({ length: 40 }, () => `/${link.slug}`));
    expect(answers.filter((answer) => answer.status === 302 && answer.location === link.destination)).toHaveLength(40);
    await expectScans(new Map([[link.id, 40]]));
    const { rows } = await pool().query("SELECT status, clean_checks FROM links WHERE id = $1", [link.id]);
    expect(rows[0]).toEqual({ status: QUARANTINE, clean_checks: 0 });
  });

  it("answers an unknown slug with 404 and records nothing", async () => {
    const answers = await visitAll(Array.from({ length: 50 }, (_, index) => `/Unknown${index % 5}`));
    expect(answers.every((answer) => answer.status === 404)).toBe(true);
  });

  it("resolves 150 links never seen before (each a cold miss) to their own destinations, one scan each", async () => {
    const links = await Promise.all(Array.from({ length: 150 }, (_, index) => seed(ACTIVE, `https://example.com/cold/${index}`)));
    const answers = await visitAll(links.map((link) => `/${link.slug}`));
    expect(answers.map((answer) => answer.location)).toEqual(links.map((link) => link.destination));
    await expectScans(new Map(links.map((link) => [link.id, 1])));
  });

  it("drops a cached miss the moment the application creates that link, though the application runs in its own process", async () => {
    const { token } = await newUser("hot-path");
    const slug = `n${randomString(SLUG_ALPHABET, 9)}`;
    expect((await get(`/${slug}`)).status).toBe(404);
    const created = await fetch(`${app.url}/api/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ destination: "https://example.com/just-created", slug }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-permalink-invalidations-sent"), "the front's bookkeeping stays inside").toBeNull();
    expect(await get(`/${slug}`)).toEqual({ status: 302, location: "https://example.com/just-created" });
  });
});
