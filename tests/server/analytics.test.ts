import { droppedSinceStartIn } from "@/lib/analytics/scan-buffer";
import { closeScanDays } from "@/lib/analytics/store/fold";
import { DAY, MONTH, QUARTER } from "@/lib/analytics/store/rollups";
import { db } from "@/lib/db/client";
import { startApp, type Door, type RunningApp } from "@/server/app-process";
import { request as httpRequest } from "node:http";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { newUser, type TestUser } from "../support/api";
import { testAppEnv } from "../support/app-env";

const SHORT_HOST = "s.test.example";
const APP_HOST = "app.test.example";
const apps: RunningApp[] = [];

const AGENTS = {
  desktop: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  phone: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  tablet:
    "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  bot: "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
  preview: "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
};

/** One visit of each kind, repeated: what a burst is made of. HEAD and the two bots are not scans. */
const MIX = [
  { agent: AGENTS.desktop, qr: false, method: "GET", scan: true },
  { agent: AGENTS.phone, qr: true, method: "GET", scan: true },
  { agent: AGENTS.tablet, qr: true, method: "GET", scan: true },
  { agent: AGENTS.desktop, qr: false, method: "GET", scan: true },
  { agent: AGENTS.bot, qr: false, method: "GET", scan: false },
  { agent: AGENTS.preview, qr: false, method: "GET", scan: false },
  { agent: AGENTS.phone, qr: true, method: "HEAD", scan: false },
] as const;

/**
 * The test's X-Forwarded-For plays a proxy in front of the server, counted in TRUSTED_PROXY_HOPS
 * behind either door: the front door appends the socket's peer (127.0.0.1) after it and trusts
 * that too; under `next start` the header arrives as sent.
 */
async function start(door: Door): Promise<RunningApp> {
  const app = await startApp(door, {
    ...testAppEnv(),
    SHORT_BASE_URL: `http://${SHORT_HOST}`,
    BASE_URL: `http://${APP_HOST}`,
    RECHECK_INTERVAL_SECONDS: "0",
    TRUSTED_PROXY_HOPS: "1",
  });
  apps.push(app);
  return app;
}

afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
});

async function createLink(app: RunningApp, user: TestUser): Promise<{ id: string; slug: string }> {
  const response = await fetch(`${app.url}/api/links`, {
    method: "POST",
    headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
    body: JSON.stringify({ destination: "https://example.com/poster" }),
  });
  expect(response.status).toBe(201);
  return response.json();
}

/** A visit on its own connection (no keep-alive): the status, or null when the server no longer took it. */
function visitOnce(app: RunningApp, slug: string, visit: (typeof MIX)[number], address: string): Promise<number | null> {
  return new Promise((resolve) => {
    const outgoing = httpRequest(
      {
        host: "127.0.0.1",
        port: app.port,
        method: visit.method,
        path: `/${slug}${visit.qr ? "?qr" : ""}`,
        agent: false,
        headers: { host: SHORT_HOST, "user-agent": visit.agent, "x-forwarded-for": address },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? null));
        response.on("error", () => resolve(null));
      },
    );
    outgoing.on("error", () => resolve(null));
    outgoing.end();
  });
}

/** `total` visits cycling through MIX, `concurrency` at a time; `onAnswered` sees the running count of answers. */
async function burst(app: RunningApp, slug: string, total: number, concurrency: number, onAnswered?: (answered: number) => void) {
  const answers: { visit: (typeof MIX)[number]; status: number | null }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const index = next++;
      const visit = MIX[index % MIX.length]!;
      const status = await visitOnce(app, slug, visit, `81.2.69.${index % 200}`);
      answers.push({ visit, status });
      if (status !== null) onAnswered?.(answers.filter((answer) => answer.status !== null).length);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const redirected = answers.filter((answer) => answer.status === 302);
  return {
    answers,
    scans: redirected.filter((answer) => answer.visit.scan).length,
    bots: redirected.filter((answer) => !answer.visit.scan).length,
  };
}

async function analytics(app: RunningApp, user: TestUser, query: Record<string, string>) {
  const response = await fetch(`${app.url}/api/analytics?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${user.token}` },
  });
  expect(response.status).toBe(200);
  return response.json();
}

describe("scan analytics through the real doors", () => {
  it.each(["front", "proxy"] as const)(
    "counts a burst of concurrent visits exactly through the %s door",
    async (door) => {
      const app = await start(door);
      const user = await newUser(`burst-${door}`);
      const link = await createLink(app, user);
      const { answers, scans, bots } = await burst(app, link.slug, 140, 10);
      expect(answers.every((answer) => answer.status === 302)).toBe(true);
      expect([scans, bots]).toEqual([80, 60]);

      await expect
        .poll(async () => (await analytics(app, user, { link_id: link.id, group_by: "source" })).total, { timeout: 10_000 })
        .toEqual({ scans: 80, uniques: expect.any(Number), bots: 60 });
      const bySource = await analytics(app, user, { link_id: link.id, group_by: "source" });
      expect(bySource.data.map((row: { key: string; scans: number }) => [row.key, row.scans])).toEqual([
        ["link", 40],
        ["qr", 40],
      ]);
      const byDevice = await analytics(app, user, { link_id: link.id, group_by: "device" });
      expect(byDevice.data.map((row: { key: string; scans: number }) => [row.key, row.scans])).toEqual([
        ["desktop", 40],
        ["mobile", 20],
        ["tablet", 20],
      ]);
      const byCountry = await analytics(app, user, { link_id: link.id, group_by: "country" });
      expect(byCountry.data.map((row: { key: string; scans: number }) => [row.key, row.scans])).toEqual([["GB", 80]]);
    },
    180_000,
  );

  it("loses nothing when the server receives SIGTERM in the middle of a burst", async () => {
    const app = await start("front");
    const user = await newUser("sigterm");
    const link = await createLink(app, user);
    let stopping: Promise<number | null> | undefined;
    const { answers, scans, bots } = await burst(app, link.slug, 2000, 16, (answered) => {
      if (answered === 300) stopping = app.stop();
    });
    expect(await stopping, "the server exits cleanly").toBe(0);
    const refused = answers.filter((answer) => answer.status === null).length;
    expect(scans + bots).toBeGreaterThanOrEqual(300);
    expect(refused, "the burst outlived the server").toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.status !== null && answer.status !== 302)).toEqual([]);

    // Every redirect answered before the server went away is in the raw table and the rollups, once.
    const raw = await db().scanEvent.groupBy({ by: ["bot"], where: { linkId: link.id }, _sum: { scans: true } });
    expect(Object.fromEntries(raw.map((row) => [String(row.bot), row._sum.scans]))).toEqual({ false: scans, true: bots });
    // Today's day and month rows are summed once the day is closed: close it as tomorrow's job would.
    await closeScanDays(Date.now() + 86_400_000);
    for (const grain of [QUARTER, DAY, MONTH]) {
      const rollup = await db().scanRollup.aggregate({
        where: { linkId: link.id, grain, dimension: 0 },
        _sum: { scans: true, bots: true },
      });
      expect([Number(rollup._sum.scans), Number(rollup._sum.bots)], `grain ${grain}`).toEqual([scans, bots]);
    }
  }, 180_000);

  it("ends within its grace period when the database takes no writes, saying how many scans it could not write", async () => {
    const app = await start("front");
    const user = await newUser("sigterm-backlog");
    const link = await createLink(app, user);
    // The writer's statement claims its batch in scan_batches first, and a parked batch goes to
    // scan_inbox: holding both locks stalls every write and every parking, while lookups (which touch
    // neither table) go on answering.
    const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await blocker.connect();
    try {
      await blocker.query("BEGIN; LOCK TABLE scan_batches, scan_inbox IN ACCESS EXCLUSIVE MODE");
      // The once-a-second flush takes the first visits' scans and waits on the lock; the later ones
      // wait in the buffer, and the draining process tries to park them.
      const first = await burst(app, link.slug, 15, 4);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const later = await burst(app, link.slug, 125, 8);
      const answers = [...first.answers, ...later.answers];
      const [scans, bots] = [first.scans + later.scans, first.bots + later.bots];
      expect(answers.filter((answer) => answer.status !== 302)).toEqual([]);
      const signalled = Date.now();
      expect(await app.stop(), "the server exits by itself, not by SIGKILL").toBe(0);
      const took = Date.now() - signalled;
      expect(took, "within the 9 s grace period (and a second for the process to start exiting)").toBeLessThan(10_000);
      const unwritten = /(\d+) scans could not be written or parked within the 9 s shutdown grace period/.exec(app.output());
      expect(Number(unwritten?.[1]), "the log says how many scans were not written").toBe(scans + bots);
      expect(droppedSinceStartIn(app.output())).toBe(0);
    } finally {
      await blocker.query("ROLLBACK");
      await blocker.end();
    }
    // The stalled batch's connection went with the process: PostgreSQL rolled it back, and the
    // parking gave up inside PostgreSQL by the deadline, so none of what the log called lost lands later.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await db().scanEvent.count({ where: { linkId: link.id } })).toBe(0);
    const parked = await db().$queryRaw<{ batches: bigint }[]>`
      SELECT count(*) AS batches FROM scan_inbox WHERE strpos(body, ${link.id}) > 0`;
    expect(Number(parked[0]!.batches)).toBe(0);
  }, 180_000);
});
