import type { ScanRow } from "@/lib/analytics/enrich";
import { writeScanBatch } from "@/lib/analytics/store/append";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { scanRow } from "../support/analytics";
import { call, newUser } from "../support/api";

// Days and hours by group_by=day and hour must begin where the zone's own do after its clocks
// change: Lord Howe Island moves them by half an hour (UTC+10:30 in winter, +11:00 in summer);
// Chile and Egypt move them forward at midnight, so that day begins at 01:00 and the next at 00:00.

function scanAt(linkId: string, iso: string): ScanRow {
  return scanRow(linkId, { occurredAt: new Date(iso) });
}

/** A new user and one link of theirs: its id, and the user's token for reading its analytics. */
async function userWithLink(name: string) {
  const user = await newUser(name);
  const link = (await call("POST", "/api/links", { token: user.token, body: { destination: `https://example.com/${name}` } }))
    .body.id as string;
  return { token: user.token, link };
}

async function hours(
  token: string,
  linkId: string,
  start: string,
  end: string,
  groupBy = "hour",
  timezone = "Australia/Lord_Howe",
) {
  const response = await call(
    "GET",
    `/api/analytics?${new URLSearchParams({ link_id: linkId, group_by: groupBy, timezone, start, end })}`,
    { token },
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data.map((row: { key: string; scans: number }) => [row.key, row.scans]);
}

describe("hours in a zone whose daylight saving moves its clocks by half an hour", () => {
  it("begin on the hour after the clocks go back (the repeated half hour is an hour of its own, as a repeated hour is)", async () => {
    const { token, link } = await userWithLink("lord-howe");
    // 02:40 local (+10:30), 03:05 local; the clocks went from 02:00 +11:00 back to 01:30 +10:30 at 15:00 UTC.
    await writeScanBatch(randomUUID(), [scanAt(link, "2026-04-04T16:10:00Z"), scanAt(link, "2026-04-04T16:35:00Z")]);

    expect(await hours(token, link, "2026-04-05T00:00", "2026-04-05T04:00")).toEqual([
      ["2026-04-05T00:00:00+11:00", 0],
      ["2026-04-05T01:00:00+11:00", 0],
      ["2026-04-05T01:30:00+10:30", 0],
      ["2026-04-05T02:00:00+10:30", 1],
      ["2026-04-05T03:00:00+10:30", 1],
    ]);
  });

  it("begin on the hour after the clocks go forward (the hour cut short by the change starts when it does)", async () => {
    const { token, link } = await userWithLink("lord-howe-spring");
    // 02:45 and 03:10 local (+11:00); the clocks went from 02:00 +10:30 to 02:30 +11:00 at 15:30 UTC.
    await writeScanBatch(randomUUID(), [scanAt(link, "2026-10-03T15:45:00Z"), scanAt(link, "2026-10-03T16:10:00Z")]);

    expect(await hours(token, link, "2026-10-04T00:00", "2026-10-04T04:00")).toEqual([
      ["2026-10-04T00:00:00+10:30", 0],
      ["2026-10-04T01:00:00+10:30", 0],
      ["2026-10-04T02:30:00+11:00", 1],
      ["2026-10-04T03:00:00+11:00", 1],
    ]);
  });

  it("are unchanged in a zone whose clocks move by an hour (Berlin's repeated hour counted twice, each with its offset)", async () => {
    const { token, link } = await userWithLink("berlin-hours");
    await writeScanBatch(randomUUID(), [
      scanAt(link, "2026-10-25T00:30:00Z"),
      scanAt(link, "2026-10-25T01:30:00Z"),
      scanAt(link, "2026-10-25T01:45:00Z"),
    ]);
    expect(await hours(token, link, "2026-10-25T01:00", "2026-10-25T04:00", "hour", "Europe/Berlin")).toEqual([
      ["2026-10-25T01:00:00+02:00", 0],
      ["2026-10-25T02:00:00+02:00", 1],
      ["2026-10-25T02:00:00+01:00", 2],
      ["2026-10-25T03:00:00+01:00", 0],
    ]);
  });
});

describe("days in a zone whose clocks go forward at midnight", () => {
  it.each([
    // 00:30 on 7 September in Santiago (UTC-3 since 6 September, whose midnight was skipped).
    {
      timezone: "America/Santiago",
      scan: "2026-09-07T03:30:00Z",
      start: "2026-09-05",
      end: "2026-09-08",
      days: ["2026-09-05", "2026-09-06", "2026-09-07", "2026-09-08"],
      day: "2026-09-07",
    },
    // 00:30 on 25 April in Cairo (UTC+3 since 24 April, whose midnight was skipped).
    {
      timezone: "Africa/Cairo",
      scan: "2026-04-24T21:30:00Z",
      start: "2026-04-23",
      end: "2026-04-26",
      days: ["2026-04-23", "2026-04-24", "2026-04-25", "2026-04-26"],
      day: "2026-04-25",
    },
  ])(
    "begin at midnight again after the day that began at 01:00 ($timezone)",
    async ({ timezone, scan, start, end, days, day }) => {
      const { token, link } = await userWithLink("midnight-dst");
      await writeScanBatch(randomUUID(), [scanAt(link, scan)]);

      expect(await hours(token, link, start, end, "day", timezone)).toEqual(days.map((key) => [key, key === day ? 1 : 0]));
    },
  );
});

describe("a range at the end of the calendar the query string accepts", () => {
  // A range ending on 31 December 9999 ends at midnight starting the year 10000 (widened by its
  // zone's offset or to the quarter hour), which JavaScript writes as +010000-01-01T…Z.
  it.each([
    { start: "9999-12-31", end: "9999-12-31", group_by: "day", timezone: "UTC" },
    { start: "9999-12-30", end: "9999-12-31", group_by: "hour", timezone: "America/St_Johns" },
    { start: "9999-12-31T23:50Z", end: "9999-12-31T23:59Z", group_by: "country", timezone: "Pacific/Kiritimati" },
  ])("is answered, not a 500 ($group_by)", async (query) => {
    const user = await newUser("year-9999");
    const response = await call("GET", `/api/analytics?${new URLSearchParams(query)}`, { token: user.token });
    expect(response.status, response.text).toBe(200);
    expect(response.body.total).toEqual({ scans: 0, uniques: 0, bots: 0 });
  });
});
