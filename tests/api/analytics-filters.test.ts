import type { ScanRow } from "@/lib/analytics/enrich";
import { writeScanBatch } from "@/lib/analytics/store/append";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { describe, expect, it } from "vitest";
import { createLink, report } from "../support/analytics";
import { call, newUser } from "../support/api";
import { seededRandom } from "../support/random";

/**
 * Visitors as the writer sees them: an address and browser, so one country, device, browser and OS
 * each; a visitor's scans come through several referrers and through both the code and the link.
 */
const VISITORS = Array.from({ length: 12 }, (_, index) => ({
  visitor: (index + 1).toString(16).padStart(32, "0"),
  country: ["AU", "NZ", "GB", null][index % 4]!,
  device: ["mobile", "desktop", "tablet"][index % 3]!,
  browser: ["Chrome", "Safari"][index % 2]!,
  os: ["iOS", "Android", "Windows"][index % 3]!,
}));
const REFERRERS = [null, "news.example", "mail.example"];

/** 400 scans over two months across the links, from the visitors above; one in ten a bot. */
function scansOf(linkIds: string[]): ScanRow[] {
  const next = seededRandom(7);
  const from = Date.UTC(2026, 8, 20);
  const to = Date.UTC(2026, 10, 10);
  return Array.from({ length: 400 }, () => {
    const person = VISITORS[Math.floor(next() * VISITORS.length)]!;
    const bot = next() < 0.1;
    return {
      linkId: linkIds[Math.floor(next() * linkIds.length)]!,
      host: "s.test.example",
      occurredAt: new Date(from + Math.floor(next() * (to - from))),
      userAgent: bot ? "Googlebot/2.1" : "Mozilla/5.0",
      referrerHost: REFERRERS[Math.floor(next() * REFERRERS.length)]!,
      country: person.country,
      viaQr: next() < 0.5,
      device: person.device,
      browser: person.browser,
      os: person.os,
      bot,
      visitor: bot ? null : person.visitor,
    };
  });
}

type Counted = { key: string; scans: number; uniques: number };
type Key = "day" | "device" | "referrer" | "country" | "link" | "total";

/** Each raw column as the analytics API names its values. */
const RAW_VALUE = {
  country: Prisma.sql`coalesce(e.country, 'unknown')`,
  device: Prisma.sql`coalesce(e.device, 'unknown')`,
  browser: Prisma.sql`coalesce(e.browser, 'unknown')`,
  os: Prisma.sql`coalesce(e.os, 'unknown')`,
  referrer: Prisma.sql`coalesce(e.referrer_host, 'direct')`,
  source: Prisma.sql`CASE WHEN e.via_qr THEN 'qr' ELSE 'link' END`,
};

/**
 * The same counts straight from the raw rows: the scans with the filter's value; a unique where the
 * writer flagged a visitor's first scan of the UTC day, for the workspace (its totals and days, and
 * the filter's own breakdown) or for each link (one link, and the other breakdowns within a filter).
 */
async function fromRawRows(
  workspaceId: string,
  query: { linkId: string | null; filter: [keyof typeof RAW_VALUE, string]; start: string; end: string; timezone: string },
  key: Key,
  unique: "link" | "workspace",
): Promise<Counted[]> {
  const keyOf: Record<Key, Prisma.Sql> = {
    day: Prisma.sql`to_char(e.occurred_at AT TIME ZONE ${query.timezone}, 'YYYY-MM-DD')`,
    device: RAW_VALUE.device,
    referrer: RAW_VALUE.referrer,
    country: RAW_VALUE.country,
    link: Prisma.sql`e.link_id`,
    total: Prisma.sql`'total'`,
  };
  const flag = unique === "link" ? Prisma.sql`e.link_unique` : Prisma.sql`e.workspace_unique`;
  const rows = await db().$queryRaw<{ key: string; scans: bigint; uniques: bigint }[]>`
    SELECT ${keyOf[key]} AS key, sum(e.scans) FILTER (WHERE NOT e.bot) AS scans, count(*) FILTER (WHERE ${flag}) AS uniques
    FROM scan_events e JOIN links l ON l.id = e.link_id
    WHERE l.workspace_id = ${workspaceId} AND (${query.linkId}::text IS NULL OR e.link_id = ${query.linkId})
      AND e.occurred_at >= ${query.start}::timestamptz AND e.occurred_at < ${query.end}::timestamptz
      AND ${RAW_VALUE[query.filter[0]]} = ${query.filter[1]}
    GROUP BY 1 HAVING sum(e.scans) FILTER (WHERE NOT e.bot) > 0`;
  return sorted(rows.map((row) => ({ key: row.key, scans: Number(row.scans), uniques: Number(row.uniques) })));
}

const sorted = (rows: Counted[]) => [...rows].sort((a, b) => a.key.localeCompare(b.key));

async function seededWorkspace(name: string) {
  const user = await newUser(name);
  const links = [
    await createLink(user, "https://example.com/a"),
    await createLink(user, "https://example.com/b"),
    await createLink(user, "https://example.com/c"),
  ];
  const scans = scansOf(links);
  for (let i = 0; i < scans.length; i += 50) await writeScanBatch(`${name}-${i}`, scans.slice(i, i + 50));
  return { user, links, scans };
}

describe("filters", () => {
  it("counts only the filter's scans in totals, days, its own breakdown, the others and the links, as the raw rows do", async () => {
    const { user, links } = await seededWorkspace("filters");
    const filters: [keyof typeof RAW_VALUE, string][] = [
      ["country", "AU"],
      ["country", "unknown"],
      ["device", "mobile"],
      ["browser", "Safari"],
      ["os", "iOS"],
      ["referrer", "news.example"],
      ["referrer", "direct"],
      ["source", "qr"],
    ];
    const ranges = [
      { start: "2026-09-01", end: "2026-11-30" }, // a whole month and days around it
      { start: "2026-10-03T10:00", end: "2026-10-09T16:45" }, // days and ragged quarter hours
    ];
    for (const timezone of ["UTC", "Australia/Adelaide"]) {
      for (const range of ranges) {
        for (const linkId of [null, links[0]!]) {
          for (const filter of filters) {
            const query = { ...range, timezone, ...(linkId && { link_id: linkId }), [filter[0]]: filter[1] };
            const context = JSON.stringify(query);
            const days = await report(user, { ...query, group_by: "day" });
            const raw = { linkId, filter, start: days.start, end: days.end, timezone };
            // The filter's totals and days: its dimension's rows, uniques as in that breakdown's row.
            const own = linkId ? "link" : "workspace";
            const [total] = await fromRawRows(user.workspaceId, raw, "total", own);
            if (range === ranges[0]) expect(total?.scans, context).toBeGreaterThan(0);
            expect(days.total, context).toEqual({ scans: total?.scans ?? 0, uniques: total?.uniques ?? 0, bots: 0 });
            expect(sorted(days.data.filter((row: Counted) => row.scans > 0)), context).toEqual(
              await fromRawRows(user.workspaceId, raw, "day", own),
            );
            // The filter's own breakdown: the one value.
            const itself = await report(user, { ...query, group_by: filter[0] });
            expect(itself.data, context).toEqual(total ? [{ key: filter[1], scans: total.scans, uniques: total.uniques }] : []);
            // Other breakdowns and the links within the filter: each link's visitors, summed.
            for (const groupBy of ["device", "referrer", "link"] as const) {
              if (groupBy === filter[0]) continue;
              const rows = (await report(user, { ...query, group_by: groupBy })).data;
              expect(sorted(rows), `${context} by ${groupBy}`).toEqual(await fromRawRows(user.workspaceId, raw, groupBy, "link"));
            }
          }
        }
      }
    }
  });

  it("gives a link's distinct visitors per UTC day in each row of a breakdown a visitor has one value of, in such a filter", async () => {
    const { user, links, scans } = await seededWorkspace("filter-visitors");
    const linkId = links[1]!;
    const byDevice = await report(user, {
      link_id: linkId,
      country: "AU",
      group_by: "device",
      start: "2026-09-01",
      end: "2026-11-30",
    });
    const distinct = new Map<string, Set<string>>();
    for (const scan of scans) {
      if (scan.linkId !== linkId || scan.bot || scan.country !== "AU") continue;
      const seen = distinct.get(scan.device!) ?? new Set();
      seen.add(`${scan.occurredAt.toISOString().slice(0, 10)} ${scan.visitor}`);
      distinct.set(scan.device!, seen);
    }
    expect(byDevice.data.length).toBeGreaterThan(0);
    for (const row of byDevice.data) expect(row.uniques, row.key).toBe(distinct.get(row.key)?.size);
  });

  it("answers the CSV within the filter too", async () => {
    const { user } = await seededWorkspace("filter-csv");
    const query = { group_by: "device", country: "NZ", start: "2026-09-01", end: "2026-11-30" };
    const json = await report(user, query);
    const csv = await call("GET", `/api/analytics?${new URLSearchParams({ ...query, format: "csv" })}`, { token: user.token });
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split(/\r?\n/).slice(1)).toEqual(
      json.data.map((row: Counted) => `"${row.key}",${row.scans},${row.uniques}`),
    );
  });

  it("refuses more than one filter, a value no breakdown has, and served within a filter, with a sentence", async () => {
    const user = await newUser("filter-refusals");
    const refusals: [Record<string, string>, string][] = [
      [
        { country: "AU", device: "mobile" },
        "The query string names 2 filters (country, device): filter by one of country, device, browser, os, referrer, source at a time.",
      ],
      [
        { country: "au" },
        'The query string field "country" is invalid: must be an ISO 3166 country code in capitals (AU) or unknown.',
      ],
      [{ device: "phone" }, 'The query string field "device" is invalid: must be one of desktop, mobile, tablet, tv, unknown.'],
      [{ source: "email" }, 'The query string field "source" is invalid: must be qr or link.'],
      [{ referrer: "" }, 'The query string field "referrer" is invalid'],
      [{ browser: "Chrome\u0000" }, 'The query string field "browser" is invalid: must not contain control characters'],
      [{ os: "\u0000" }, 'The query string field "os" is invalid: must not contain control characters'],
      [{ referrer: "news.example\u0000" }, 'The query string field "referrer" is invalid: must not contain control characters'],
      [{ group_by: "served", country: "AU" }, "group_by=served cannot be combined with a country filter"],
    ];
    for (const [query, sentence] of refusals) {
      const response = await call("GET", `/api/analytics?${new URLSearchParams(query)}`, { token: user.token });
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body.error, JSON.stringify(query)).toContain(sentence);
    }
  });

  it("declares the filters as query parameters in the OpenAPI document", async () => {
    const document = await call("GET", "/api/openapi.json");
    const parameters = document.body.paths["/api/analytics"].get.parameters.map((parameter: { name: string }) => parameter.name);
    expect(parameters).toEqual(expect.arrayContaining(["country", "device", "browser", "os", "referrer", "source"]));
  });
});
