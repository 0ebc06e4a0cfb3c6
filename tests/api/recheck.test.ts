import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { onInvalidation, type Invalidation } from "@/lib/links/invalidation";
import { recheckLinks } from "@/lib/resolution/recheck";
import { useTestBlocklist } from "../support/blocklist";
import { call, newUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const FULL_RUN = { quarantinedLimit: 200, activeSample: 20 };
const CRON_SECRET = "cron-secret-for-the-tests";

let blocklist: Awaited<ReturnType<typeof useTestBlocklist>>;
let startedAt: number;
let now: number;
let linkCounter = 0;

/** Moves the process clock to this long after the test started. */
function travelTo(offsetMs: number): void {
  now = startedAt + offsetMs;
}

async function createLink(destination = `https://example.com/recheck/${++linkCounter}`) {
  const response = await call("POST", "/api/links", { token: (await newUser()).token, body: { destination } });
  expect(response.status, response.text).toBe(201);
  return response.body as { id: string; slug: string };
}

const stored = (id: string) => db().link.findUniqueOrThrow({ where: { id } });

function rememberInvalidations(): Invalidation[] {
  const heard: Invalidation[] = [];
  onInvalidation((invalidation) => heard.push(invalidation));
  return heard;
}

beforeAll(async () => {
  blocklist = await useTestBlocklist();
});

afterAll(() => blocklist.remove());

beforeEach(async () => {
  // Each test sees only its own links: a run walks every due link in the database.
  await db().link.deleteMany();
  startedAt = Date.now();
  now = startedAt;
  setClock({ now: () => now });
});

afterEach(() => {
  setClock(undefined);
});

describe("recheckLinks: quarantined links", () => {
  it("counts a clean check at most once per spacing and releases at day 7 with three, not before", async () => {
    const link = await createLink();

    travelTo(HOUR_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual({ checked: 1, released: 0, blocked: 0 });
    expect(await stored(link.id)).toMatchObject({ status: 1, cleanChecks: 1 });

    travelTo(HOUR_MS + 30 * 60 * 1000);
    expect(await recheckLinks(FULL_RUN)).toEqual({ checked: 0, released: 0, blocked: 0 });

    travelTo(3 * HOUR_MS);
    await recheckLinks(FULL_RUN);
    travelTo(6 * DAY_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual({ checked: 1, released: 0, blocked: 0 });
    expect(await stored(link.id)).toMatchObject({ status: 1, cleanChecks: 3 });

    const heard = rememberInvalidations();
    travelTo(7 * DAY_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual({ checked: 1, released: 1, blocked: 0 });
    expect(await stored(link.id)).toMatchObject({ status: 0, cleanChecks: 4 });
    expect(heard).toContainEqual({ kind: "link", host: null, slug: link.slug });
  });

  it("counts once, and releases once, when two runs go at the same time", async () => {
    const link = await createLink();

    travelTo(HOUR_MS);
    await Promise.all([recheckLinks(FULL_RUN), recheckLinks(FULL_RUN)]);
    expect((await stored(link.id)).cleanChecks).toBe(1);

    travelTo(3 * HOUR_MS);
    await recheckLinks(FULL_RUN);
    travelTo(7 * DAY_MS);
    const runs = await Promise.all([recheckLinks(FULL_RUN), recheckLinks(FULL_RUN)]);
    expect(runs.reduce((sum, run) => sum + run.released, 0)).toBe(1);
    expect(await stored(link.id)).toMatchObject({ status: 0, cleanChecks: 3 });
  });

  it("blocks a link whose destination became malicious, and every instance drops its copy", async () => {
    const domain = `turned-bad-${Date.now()}.example.com`;
    const link = await createLink(`https://${domain}/offer`);
    await blocklist.add(domain, "malware");
    const heard = rememberInvalidations();

    travelTo(HOUR_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual({ checked: 1, released: 0, blocked: 1 });

    const row = await stored(link.id);
    expect(row.status).toBe(2);
    expect(row.abuseReason).toMatch(/blocklist.*malware/);
    expect(heard).toContainEqual({ kind: "link", host: null, slug: link.slug });
    expect(await recheckLinks(FULL_RUN)).toEqual({ checked: 0, released: 0, blocked: 0 });
  });

  it("does not count an unknown verdict (the destination does not resolve), but records the check", async () => {
    const link = await createLink(`https://${TEST_ZONE.missingName}/promo`);

    travelTo(HOUR_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual({ checked: 1, released: 0, blocked: 0 });

    const row = await stored(link.id);
    expect(row).toMatchObject({ status: 1, cleanChecks: 0, lastCountedCheckAt: null });
    expect(row.lastCheckedAt?.getTime()).toBe(startedAt + HOUR_MS);
  });

  it("takes the least recently checked quarantined links first, up to the limit", async () => {
    const [neverChecked, checkedLongAgo, checkedLately] = [await createLink(), await createLink(), await createLink()];
    await db().link.update({ where: { id: checkedLongAgo.id }, data: { lastCheckedAt: new Date(startedAt - 5 * DAY_MS) } });
    await db().link.update({ where: { id: checkedLately.id }, data: { lastCheckedAt: new Date(startedAt - 2 * DAY_MS) } });

    expect(await recheckLinks({ quarantinedLimit: 2, activeSample: 0 })).toEqual({ checked: 2, released: 0, blocked: 0 });

    expect((await stored(neverChecked.id)).cleanChecks).toBe(1);
    expect((await stored(checkedLongAgo.id)).cleanChecks).toBe(1);
    expect((await stored(checkedLately.id)).cleanChecks).toBe(0);
  });
});

describe("recheckLinks: active links", () => {
  it("re-checks a sample, least recently checked first, and blocks one that turned malicious", async () => {
    const domain = `went-rogue-${Date.now()}.example.com`;
    const rogue = await createLink(`https://${domain}/`);
    const [fine, recentlyChecked] = [await createLink(), await createLink()];
    await db().link.updateMany({ where: { id: { in: [rogue.id, fine.id, recentlyChecked.id] } }, data: { status: 0 } });
    await db().link.update({ where: { id: recentlyChecked.id }, data: { lastCheckedAt: new Date(startedAt - HOUR_MS) } });
    await blocklist.add(domain, "malware");

    expect(await recheckLinks({ quarantinedLimit: 200, activeSample: 2 })).toEqual({ checked: 2, released: 0, blocked: 1 });

    expect(await stored(rogue.id)).toMatchObject({ status: 2, abuseReason: expect.stringMatching(/blocklist/) });
    expect(await stored(fine.id)).toMatchObject({ status: 0, lastCheckedAt: new Date(startedAt), cleanChecks: 0 });
    expect((await stored(recentlyChecked.id)).lastCheckedAt).toEqual(new Date(startedAt - HOUR_MS));
  });
});

describe("GET /api/cron/recheck", () => {
  afterEach(() => {
    delete process.env.CRON_SECRET;
    resetConfig();
  });

  function configureCronSecret(): void {
    process.env.CRON_SECRET = CRON_SECRET;
    resetConfig();
  }

  it("answers 503 when CRON_SECRET is not set", async () => {
    const response = await call("GET", "/api/cron/recheck", { token: CRON_SECRET });
    expect(response.status).toBe(503);
    expect(response.body.error).toMatch(/CRON_SECRET/);
  });

  it.each([
    ["no Authorization header", {}],
    ["a wrong secret", { token: "not-the-cron-secret-at-all" }],
    ["the right secret with another scheme", { headers: { authorization: `Basic ${CRON_SECRET}` } }],
  ])("refuses %s with 401 and runs nothing", async (_label, options) => {
    configureCronSecret();
    const link = await createLink();
    const response = await call("GET", "/api/cron/recheck", options);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: expect.any(String) });
    expect((await stored(link.id)).lastCheckedAt).toBeNull();
  });

  it("runs the re-check with the right secret and answers the counts", async () => {
    configureCronSecret();
    const link = await createLink();
    const response = await call("GET", "/api/cron/recheck", { token: CRON_SECRET });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ checked: 1, released: 0, blocked: 0 });
    expect((await stored(link.id)).cleanChecks).toBe(1);
  });
});
