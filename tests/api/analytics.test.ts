import { scanBuffer } from "@/lib/analytics/scans";
import { writeScanBatch } from "@/lib/analytics/store/append";
import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { behindFrontDoor } from "@/lib/http/client-address";
import { resetResolutionRuntime } from "@/lib/resolution/runtime";
import { proxy } from "@/proxy";
import { NextRequest, type NextFetchEvent } from "next/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";
import { visit } from "../support/visits";

const AGENTS = {
  desktop: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  phone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) " +
    "Version/17.5 Mobile/15E148 Safari/604.1",
  tablet: "Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  bot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  slack: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  whatsapp: "WhatsApp/2.23.20.0",
};

let now = Date.UTC(2026, 10, 20, 12);

async function createLink(user: TestUser, destination = "https://example.com/menu"): Promise<{ id: string; slug: string }> {
  const response = await call("POST", "/api/links", { token: user.token, body: { destination } });
  expect(response.status).toBe(201);
  return response.body;
}

async function analytics(user: Pick<TestUser, "token"> & { headers?: Record<string, string> }, query: Record<string, string>) {
  return call("GET", `/api/analytics?${new URLSearchParams(query)}`, { token: user.token, headers: user.headers });
}

/** A person (or bot) at `address` visiting the link; returns the answer's status. */
async function scan(
  slug: string,
  agent: string,
  address: string,
  options: { qr?: boolean; method?: "GET" | "HEAD"; headers?: Record<string, string> } = {},
) {
  const answer = await visit(`/${slug}${options.qr ? "?qr" : ""}`, {
    method: options.method,
    headers: { "User-Agent": agent, "X-Forwarded-For": address, ...options.headers },
  });
  return answer.status;
}

/** The suite's own setting (tests/support/per-file-setup.ts), put back after each test. */
const PROXIES_IN_FRONT = process.env.TRUSTED_PROXY_HOPS;

function setEnv(name: string, value: string | undefined) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  resetConfig();
  resetResolutionRuntime();
}

beforeEach(() => {
  now = Date.UTC(2026, 10, 20, 12);
  setClock({ now: () => now });
  resetResolutionRuntime();
});

afterEach(() => {
  setEnv("TRUSTED_COUNTRY_HEADER", undefined);
  setEnv("TRUSTED_PROXY_HOPS", PROXIES_IN_FRONT);
  setClock(undefined);
});

const keyed = (rows: { key: string; scans: number; uniques: number }[]) =>
  Object.fromEntries(rows.map((row) => [row.key, [row.scans, row.uniques]]));

describe("recording", () => {
  it("counts people by device, browser, OS and source; bots, preview fetchers and HEAD are redirected and counted apart", async () => {
    const user = await newUser("analytics");
    const link = await createLink(user);
    const statuses = await Promise.all([
      scan(link.slug, AGENTS.desktop, "81.2.69.142"),
      scan(link.slug, AGENTS.desktop, "81.2.69.142"),
      scan(link.slug, AGENTS.phone, "203.2.218.214", { qr: true }),
      scan(link.slug, AGENTS.phone, "203.2.218.215", { qr: true }),
      scan(link.slug, AGENTS.tablet, "8.8.8.8", { qr: true }),
      scan(link.slug, AGENTS.bot, "66.249.66.1"),
      scan(link.slug, AGENTS.slack, "3.3.3.3"),
      scan(link.slug, AGENTS.whatsapp, "3.3.3.4", { qr: true }),
      scan(link.slug, AGENTS.desktop, "81.2.69.143", { method: "HEAD" }),
    ]);
    expect(statuses).toEqual([302, 302, 302, 302, 302, 302, 302, 302, 302]);
    await scanBuffer().flush();

    const byDevice = await analytics(user, { link_id: link.id, group_by: "device" });
    expect(byDevice.status).toBe(200);
    expect(byDevice.body.total).toEqual({ scans: 5, uniques: 4, bots: 4 });
    expect(byDevice.body.data).toEqual([
      { key: "desktop", scans: 2, uniques: 1 },
      { key: "mobile", scans: 2, uniques: 2 },
      { key: "tablet", scans: 1, uniques: 1 },
    ]);
    expect(keyed((await analytics(user, { link_id: link.id, group_by: "source" })).body.data)).toEqual({
      qr: [3, 3],
      link: [2, 1],
    });
    expect(keyed((await analytics(user, { link_id: link.id, group_by: "browser" })).body.data)).toEqual({
      Chrome: [3, 2],
      Safari: [2, 2],
    });
    expect(keyed((await analytics(user, { link_id: link.id, group_by: "os" })).body.data)).toEqual({
      Windows: [2, 1],
      iOS: [2, 2],
      Android: [1, 1],
    });
    expect(keyed((await analytics(user, { link_id: link.id, group_by: "country" })).body.data)).toEqual({
      GB: [2, 1],
      AU: [2, 2],
      US: [1, 1],
    });

    const raw = await db().scanEvent.groupBy({ by: ["bot"], where: { linkId: link.id }, _sum: { scans: true } });
    expect(Object.fromEntries(raw.map((row) => [String(row.bot), row._sum.scans]))).toEqual({ false: 5, true: 4 });
  });

  it("takes the country from the configured edge header only, and from the address otherwise", async () => {
    const user = await newUser("analytics");
    const link = await createLink(user);
    await scan(link.slug, AGENTS.phone, "203.2.218.214", { headers: { "CF-IPCountry": "NZ" } });
    setEnv("TRUSTED_COUNTRY_HEADER", "cf-ipcountry");
    await scan(link.slug, AGENTS.phone, "203.2.218.214", { headers: { "CF-IPCountry": "NZ" } });
    await scan(link.slug, AGENTS.phone, "81.2.69.142", { headers: { "CF-IPCountry": "XX" } });
    await scan(link.slug, AGENTS.phone, "81.2.69.142", { headers: { "X-Vercel-IP-Country": "FR" } });
    setEnv("TRUSTED_COUNTRY_HEADER", "x-vercel-ip-country");
    await scan(link.slug, AGENTS.phone, "81.2.69.142", { headers: { "X-Vercel-IP-Country": "FR", "CF-IPCountry": "NZ" } });
    await scanBuffer().flush();
    const byCountry = await analytics(user, { link_id: link.id, group_by: "country" });
    expect(keyed(byCountry.body.data)).toEqual({ AU: [1, 1], NZ: [1, 0], GB: [2, 1], FR: [1, 0] });
  });

  it("trusts the X-Forwarded-For entries of the TRUSTED_PROXY_HOPS proxies, then the front door's socket peer", async () => {
    const user = await newUser("analytics");
    const link = await createLink(user);
    const from = async (forwardedFor: string, peer?: string) => {
      await visit(`/${link.slug}`, { headers: { "User-Agent": AGENTS.phone, "X-Forwarded-For": forwardedFor }, peer });
      // The address is decided when the scan is written, with the configuration of that moment.
      await scanBuffer().flush();
    };
    // The suite plays one proxy in front: what a client claiming to be in Australia wrote before it counts for nothing.
    await from("203.2.218.214, 81.2.69.142");
    // Through the front door with no proxy in front: the socket's peer counts.
    setEnv("TRUSTED_PROXY_HOPS", "0");
    await from("203.2.218.214", "81.2.69.142");
    // Through Next's proxy with no proxy in front (bare `next start`): the header is the client's own, and names no one.
    await from("203.2.218.214");
    expect(keyed((await analytics(user, { link_id: link.id, group_by: "country" })).body.data)).toEqual({
      GB: [2, 1],
      unknown: [1, 1],
    });
  });

  it("counts a visit Next's proxy answers behind npm start's front door by the peer the front door appended", async () => {
    const user = await newUser("analytics");
    const link = await createLink(user);
    // npm start's application process: the front door appended its socket's peer before handing
    // the request to Next, whose proxy answers it as a visit.
    behindFrontDoor.set(true);
    try {
      const from = async (forwardedFor: string) => {
        const request = new NextRequest(`http://s.test.example/${link.slug}`, {
          headers: { host: "s.test.example", "user-agent": AGENTS.phone, "x-forwarded-for": forwardedFor },
        });
        const answer = await proxy(request, { waitUntil: () => undefined } as unknown as NextFetchEvent);
        expect(answer.status).toBe(302);
        await scanBuffer().flush();
      };
      setEnv("TRUSTED_PROXY_HOPS", "0");
      await from("203.2.218.214, 81.2.69.142");
      // Behind HAProxy (npm run cluster): it wrote the client's entry, the front door its own address.
      setEnv("TRUSTED_PROXY_HOPS", "1");
      await from("203.2.218.214, 81.2.69.142, 127.0.0.1");
    } finally {
      behindFrontDoor.reset();
    }
    expect(keyed((await analytics(user, { link_id: link.id, group_by: "country" })).body.data)).toEqual({ GB: [2, 1] });
  });

  it("counts a visitor once per UTC day, per link and per workspace", async () => {
    const user = await newUser("analytics");
    const [first, second] = [await createLink(user, "https://example.com/a"), await createLink(user, "https://example.com/b")];
    await scan(first.slug, AGENTS.phone, "203.2.218.214");
    await scan(first.slug, AGENTS.phone, "203.2.218.214");
    // Written apart: two buffers writing one visitor's scans of two links at the same moment may both
    // count them as the workspace's unique (the one estimate, docs/analytics.md).
    await scanBuffer().flush();
    await scan(second.slug, AGENTS.phone, "203.2.218.214");
    now += 24 * 3600 * 1000;
    await scan(first.slug, AGENTS.phone, "203.2.218.214");
    await scanBuffer().flush();
    const range = { start: "2026-11-20", end: "2026-11-21" };
    expect((await analytics(user, { link_id: first.id, ...range })).body.total).toEqual({ scans: 3, uniques: 2, bots: 0 });
    const workspace = await analytics(user, { ...range });
    expect(workspace.body.total).toEqual({ scans: 4, uniques: 2, bots: 0 });
    expect(workspace.body.data).toEqual([
      { key: "2026-11-20", scans: 3, uniques: 1 },
      { key: "2026-11-21", scans: 1, uniques: 1 },
    ]);
    expect(keyed((await analytics(user, { ...range, group_by: "link" })).body.data)).toEqual({
      [first.id]: [3, 2],
      [second.id]: [1, 1],
    });
    expect(keyed((await analytics(user, { ...range, group_by: "referrer" })).body.data)).toEqual({ direct: [4, 2] });
  });

  it("writes a batch once, whatever the retries: the batch id is claimed in the writing statement", async () => {
    const user = await newUser("analytics");
    const link = await createLink(user);
    const row = {
      linkId: link.id,
      host: "s.test.example",
      occurredAt: new Date(now),
      userAgent: AGENTS.phone,
      referrerHost: "news.example",
      country: "AU",
      viaQr: true,
      device: "mobile",
      browser: "Safari",
      os: "iOS",
      bot: false,
      visitor: "00112233445566778899aabbccddeeff",
    };
    await Promise.all([writeScanBatch("batch-1", [row, row]), writeScanBatch("batch-1", [row, row])]);
    await writeScanBatch("batch-1", [row, row]);
    await writeScanBatch("batch-2", [row]);
    expect(await db().scanEvent.count({ where: { linkId: link.id } })).toBe(3);
    const report = await analytics(user, { link_id: link.id, group_by: "referrer" });
    expect(report.body.total).toEqual({ scans: 3, uniques: 1, bots: 0 });
    expect(report.body.data).toEqual([{ key: "news.example", scans: 3, uniques: 1 }]);
    // The workspace's unique too: the batch written again found the visitor's row, and wrote none.
    expect((await analytics(user, {})).body.total).toEqual({ scans: 3, uniques: 1, bots: 0 });
  });

  it("writes a row that stands for several identical scans as one raw row with their count, its visitor unique once", async () => {
    const user = await newUser("analytics");
    const link = await createLink(user);
    const row = {
      linkId: link.id,
      host: "s.test.example",
      occurredAt: new Date(now),
      userAgent: AGENTS.phone,
      referrerHost: null,
      country: "AU",
      viaQr: false,
      device: "mobile",
      browser: "Safari",
      os: "iOS",
      bot: false,
      visitor: "ffeeddccbbaa99887766554433221100",
    };
    await writeScanBatch("batch-folded", [row, { ...row, visitor: null, bot: true }], [4, 3]);
    const raw = await db().scanEvent.findMany({
      where: { linkId: link.id },
      orderBy: { id: "asc" },
      select: { bot: true, linkUnique: true, scans: true },
    });
    expect(raw).toEqual([
      { bot: false, linkUnique: true, scans: 4 },
      { bot: true, linkUnique: false, scans: 3 },
    ]);
    expect((await analytics(user, { link_id: link.id, group_by: "country" })).body).toMatchObject({
      total: { scans: 4, uniques: 1, bots: 3 },
      data: [{ key: "AU", scans: 4, uniques: 1 }],
    });
  });
});

describe("time zones", () => {
  it("cuts days and hours in a half-hour zone, zero-filled and in order", async () => {
    const user = await newUser("analytics");
    const link = await createLink(user);
    let visitors = 0;
    // Adelaide is UTC+10:30 in November (daylight saving): local midnight is 13:30 UTC the day before.
    for (const [time, count] of [
      [Date.UTC(2026, 10, 20, 13, 29), 1], // 23:59 on the 20th in Adelaide
      [Date.UTC(2026, 10, 20, 13, 30), 2], // 00:00 on the 21st
      [Date.UTC(2026, 10, 22, 14, 0), 1], // 00:30 on the 23rd
    ] as const) {
      now = time;
      for (let i = 0; i < count; i++) await scan(link.slug, AGENTS.desktop, `81.2.69.${++visitors}`);
    }
    await scanBuffer().flush();

    const days = await analytics(user, {
      link_id: link.id,
      group_by: "day",
      timezone: "Australia/Adelaide",
      start: "2026-11-20",
      end: "2026-11-23",
    });
    expect(days.status).toBe(200);
    expect(days.body).toMatchObject({
      group_by: "day",
      timezone: "Australia/Adelaide",
      start: "2026-11-20T00:00:00+10:30",
      end: "2026-11-24T00:00:00+10:30",
    });
    expect(days.body.data).toEqual([
      { key: "2026-11-20", scans: 1, uniques: 1 },
      { key: "2026-11-21", scans: 2, uniques: 2 },
      { key: "2026-11-22", scans: 0, uniques: 0 },
      { key: "2026-11-23", scans: 1, uniques: 1 },
    ]);
    expect(days.body.total.scans).toBe(4);

    const utcDays = await analytics(user, { link_id: link.id, group_by: "day", start: "2026-11-20", end: "2026-11-22" });
    expect(utcDays.body.data.map((row: { scans: number }) => row.scans)).toEqual([3, 0, 1]);

    const hours = await analytics(user, {
      link_id: link.id,
      group_by: "hour",
      timezone: "Australia/Adelaide",
      start: "2026-11-20T23:00",
      end: "2026-11-21T02:00",
    });
    expect(hours.body.data).toEqual([
      { key: "2026-11-20T23:00:00+10:30", scans: 1, uniques: 1 },
      { key: "2026-11-21T00:00:00+10:30", scans: 2, uniques: 2 },
      { key: "2026-11-21T01:00:00+10:30", scans: 0, uniques: 0 },
    ]);

    // A quarter-hour zone (Nepal, UTC+5:45): the Adelaide midnight scans fall at 19:15 on the 20th.
    const nepal = await analytics(user, {
      link_id: link.id,
      group_by: "hour",
      timezone: "Asia/Kathmandu",
      start: "2026-11-20T19:00",
      end: "2026-11-20T20:00",
    });
    expect(nepal.body.data).toEqual([{ key: "2026-11-20T19:00:00+05:45", scans: 3, uniques: 3 }]);
  });

  it("cuts a range across UTC days exactly: whole days from the day rollup, the edges from quarter hours", async () => {
    const user = await newUser("analytics");
    const link = await createLink(user);
    const outside = [Date.UTC(2026, 8, 30, 14, 29), Date.UTC(2026, 10, 1, 13, 30)];
    const inside = [Date.UTC(2026, 8, 30, 14, 30), Date.UTC(2026, 9, 10, 12), Date.UTC(2026, 10, 1, 13, 29)];
    // In time order, as they would arrive: a visitor's first scan of a UTC day is the unique one.
    for (const time of [...outside, ...inside].sort((x, y) => x - y)) {
      now = time;
      await scan(link.slug, AGENTS.tablet, "8.8.8.8");
    }
    await scanBuffer().flush();
    // Adelaide (UTC+9:30 until 4 October, then +10:30): 1 October to 1 November local.
    const report = await analytics(user, {
      link_id: link.id,
      group_by: "device",
      timezone: "Australia/Adelaide",
      start: "2026-10-01",
      end: "2026-11-01",
    });
    expect(report.body.start).toBe("2026-10-01T00:00:00+09:30");
    expect(report.body.end).toBe("2026-11-02T00:00:00+10:30");
    // One visitor: the scan at 14:30 UTC on 30 September was their second of that UTC day, so not a unique.
    expect(report.body.data).toEqual([{ key: "tablet", scans: 3, uniques: 2 }]);
    expect(report.body.total).toEqual({ scans: 3, uniques: 2, bots: 0 });
  });
});

describe("GET /api/analytics", () => {
  it("returns the same rows as CSV", async () => {
    const user = await newUser("analytics");
    const link = await createLink(user);
    await scan(link.slug, AGENTS.desktop, "81.2.69.142", { headers: { Referer: "https://news.example/story" } });
    await scan(link.slug, AGENTS.phone, "203.2.218.214", { qr: true });
    await scanBuffer().flush();
    for (const group_by of ["day", "referrer", "country"]) {
      const query = { link_id: link.id, group_by, start: "2026-11-18", end: "2026-11-20" };
      const json = await analytics(user, query);
      const csv = await analytics(user, { ...query, format: "csv" });
      expect(csv.status).toBe(200);
      expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      const [header, ...lines] = csv.text.trimEnd().split("\r\n");
      expect(header).toBe('"key","scans","uniques"');
      expect(lines.map((line) => line.split(","))).toEqual(
        json.body.data.map((row: { key: string; scans: number; uniques: number }) => [
          `"${row.key}"`,
          String(row.scans),
          String(row.uniques),
        ]),
      );
    }
  });

  it("is readable by every role and without a subscription; another workspace's link is not found", async () => {
    const owner = await newUser("owner");
    const link = await createLink(owner);
    await scan(link.slug, AGENTS.phone, "203.2.218.214");
    await scanBuffer().flush();
    const member = await joinWorkspace(await newUser("member", { subscription: false }), owner.workspaceId, "member");
    expect((await analytics(member, { link_id: link.id })).body.total.scans).toBe(1);

    const lapsed = await newUser("lapsed", { subscription: false });
    const lapsedReport = await analytics(lapsed, {});
    expect(lapsedReport.status).toBe(200);
    expect(lapsedReport.body.data).toHaveLength(30);

    const stranger = await analytics(lapsed, { link_id: link.id });
    expect(stranger.status).toBe(404);
    expect(stranger.body.error).toMatch(/no link/i);
  });

  it.each(["\u0000", "%", "x".repeat(64), "../links"])(
    "answers a link_id that is no id (%j) with 404, never a 5xx",
    async (linkId) => {
      const response = await analytics(await newUser("hostile"), { link_id: linkId });
      expect(response.status).toBe(404);
      expect(response.body.error).toMatch(/no link/i);
    },
  );

  it("refuses bad input with a sentence", async () => {
    const user = await newUser("analytics");
    const cases: [Record<string, string>, RegExp][] = [
      [{ group_by: "week" }, /group_by/],
      [{ timezone: "Mars/Olympus" }, /timezone/],
      [{ timezone: "+05:30" }, /timezone/],
      [{ start: "2026-02-30" }, /start/],
      [{ start: "yesterday" }, /start/],
      [{ start: "2026-11-10", end: "2026-11-01" }, /before end/],
      [{ start: "2025-01-01", end: "2026-11-01", group_by: "hour" }, /366 days/],
      [{ format: "xml" }, /format/],
      [{ colour: "red" }, /colour/],
    ];
    for (const [query, message] of cases) {
      const response = await analytics(user, query);
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body.error).toMatch(message);
    }
    expect((await call("GET", "/api/analytics")).status).toBe(401);
  });
});
