import { defineOperation, failure, ok } from "@/lib/http/operation";
import { analyticsQuery, analyticsSchema, scanRetentionRunSchema } from "./schemas";

export const getAnalytics = defineOperation({
  method: "get",
  path: "/api/analytics",
  auth: "workspace",
  scope: "analytics:read",
  operationId: "getAnalytics",
  summary: "Scan analytics",
  description:
    "Scans of one link (link_id) or of the whole workspace, grouped by day or hour in a time zone " +
    "(in time order, every bucket present, zeros included) or by country, device, browser, os, " +
    "referrer, source, served (which destination served: rule:N or default) or link (most scans " +
    "first). A scan is a GET of the short URL by a person: bots, link-preview fetchers (Slackbot, " +
    "Twitterbot, facebookexternalhit, WhatsApp, Discordbot…) and HEAD requests are redirected but " +
    "counted apart, in total.bots. Uniques count a visitor once per link (per workspace without " +
    "link_id) per UTC day, from a keyed hash of address and user agent that changes every day; no " +
    "address is stored. start and end take ISO 8601 dates (a whole day in the time zone) or times; " +
    "times are widened to quarter hours, and the answer states the exact range counted. Default: the " +
    "last 30 days, today included. At most 3660 days (366 when grouping by hour). format=csv returns " +
    "the same rows as text/csv (key,scans,uniques). One filter (country, device, browser, os, referrer " +
    "or source, each a key of that breakdown) counts only the scans with that value, in the totals, " +
    "the days and hours, the other breakdowns and the links; bots are not broken down, so total.bots " +
    "is 0 within a filter, and served cannot be combined with one. Readable by every role and without an active " +
    "subscription; a machine account reads its own links.",
  tag: "Analytics",
  query: analyticsQuery,
  responses: {
    200: { description: "The counts, as JSON or (format=csv) as CSV.", body: analyticsSchema, files: ["text/csv"] },
    400: failure(
      "The query string failed validation (more than one filter among them), the range is empty or too long, the time " +
        "zone is unknown, or group_by=served came with a filter.",
    ),
    404: failure("link_id names no link of this workspace."),
  },
});

export const pruneScanEvents = defineOperation({
  method: "get",
  path: "/api/cron/scan-retention",
  auth: "cron",
  operationId: "pruneScanEvents",
  summary: "Delete raw scan events past their retention (cron)",
  description:
    "Deletes raw scan events older than SCAN_RETENTION_DAYS (default 90), and the per-day visitor " +
    "hashes and batch claims older than two days. Raw events are kept in one partition per UTC day: " +
    "days wholly past the retention are dropped whole, the older rows of the day across it are " +
    "deleted, and the partitions of the next 7 days are created ahead. Every count survives in the " +
    "rollups (quarter-hour, UTC-day and UTC-month buckets per country, device, browser, OS, referrer " +
    "and source), written in the same statement as the raw rows, so analytics answers the same " +
    "before and after. Safe to run any number of times and on several instances at once.",
  tag: "Operations",
  responses: { 200: ok("What this run deleted.", scanRetentionRunSchema) },
});
