import { getAnalytics } from "@/lib/analytics/operations";
import { analyticsCsv, scanAnalytics } from "@/lib/analytics/service";
import { createLinksInBulk } from "@/lib/api/bulk-links";
import * as billingOperations from "@/lib/billing/operations";
import { describeAccount } from "@/lib/billing/service";
import * as domainOperations from "@/lib/domains/operations";
import { listDomains, updateDomain } from "@/lib/domains/service";
import { hashedClientNetwork } from "@/lib/http/client-address";
import * as importOperations from "@/lib/imports/operations";
import { getImport, startImport } from "@/lib/imports/service";
import { linkHistoryPage } from "@/lib/links/history";
import * as linkOperations from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import { linkSchema, paidLinkSchema } from "@/lib/links/schemas";
import { archive, createLink, editLink, getLink, listLinks, restore } from "@/lib/links/service";
import { buyLinkByToolCall } from "@/lib/payments/tool-call";
import { getQrCode } from "@/lib/qr/operations";
import { linkArtwork } from "@/lib/qr/service";
import * as tagOperations from "@/lib/tags/operations";
import { listTags } from "@/lib/tags/service";
import * as webhookOperations from "@/lib/webhooks/operations";
import { listWebhooks } from "@/lib/webhooks/service";
import { z } from "zod";
import { defineTool } from "./tool";

/*
 * Each tool names the operation it is a door to and says, for agents, what it does; its schemas,
 * title, write budget and read-only hint are the operation's (lib/mcp/tool.ts).
 */

export const createLinkTool = defineTool(linkOperations.createLink, {
  name: "create_link",
  description:
    "Creates a permanent short link in your workspace (needs a Bearer credential and an active subscription; " +
    "a machine account buys each link with buy_link instead). The link starts in quarantine (status 1): " +
    "it resolves normally while each visit runs a live safety check. Without slug, an existing live link of the " +
    "workspace to the same destination is returned instead of a duplicate. Returns the Link with its short_url.",
  output: linkSchema,
  hints: { destructive: false },
  run: async (input, { principal }) => toLinkView((await createLink(principal, input)).link),
});

export const listLinksTool = defineTool(linkOperations.listLinks, {
  name: "list_links",
  description:
    "Lists the workspace's live links, most recent first (archived links are left out), a page at a time " +
    "(limit: the page size); pass next_cursor as cursor for the next page.",
  run: (input, { principal }) => listLinks(principal, input),
});

export const getLinkTool = defineTool(linkOperations.getLink, {
  name: "get_link",
  description: "Reads one link of the workspace by id, archived links included.",
  run: async (input, { principal }) => toLinkView(await getLink(principal, input.id)),
});

export const getLinkHistoryTool = defineTool(linkOperations.getLinkHistory, {
  name: "get_link_history",
  description:
    "Reads a link's history, newest first: each change (created, edited, archived, restored, status changed, a " +
    "scheduled repoint applied), through which door, by whom, and the link before and after it; pass next_cursor " +
    "as cursor for the next page.",
  run: (input, { principal }) => linkHistoryPage(principal, input.id, input),
});

export const repointLinkTool = defineTool(linkOperations.updateLink, {
  name: "repoint_link",
  description:
    "Points an existing code at a new destination; the slug and short_url never change, and the next visit goes " +
    "to the new destination. The link goes back to quarantine (status 1). Needs an active subscription, except " +
    "for a machine account's key, which repoints the links it bought.",
  required: ["destination"],
  hints: { destructive: false, idempotent: true },
  run: async (input, { principal }) => toLinkView(await editLink(principal, input.id, input)),
});

export const setLinkRulesTool = defineTool(linkOperations.updateLink, {
  name: "set_link_rules",
  description:
    "Replaces a link's routing rules (at most 20, in order; an empty list removes them). Each rule is " +
    "{when, destination}: when names any of country (ISO codes such as AU), device (mobile, tablet, desktop), " +
    "os (ios, android, windows, macos, linux) and language (primary tags such as fr); a visit goes to the " +
    "destination of the first rule whose named conditions all hold, else to the link's own destination. Each " +
    "destination is vetted like a repoint, and the link goes back to quarantine (status 1). Takes only id and " +
    "rules (repoint_link changes the rest). Needs an active subscription. Returns the Link with its rules.",
  fields: ["rules"],
  required: ["rules"],
  hints: { destructive: false, idempotent: true },
  run: async ({ id, rules }, { principal }) => toLinkView(await editLink(principal, id, { rules })),
});

export const scheduleRepointTool = defineTool(linkOperations.updateLink, {
  name: "schedule_repoint",
  description:
    "Replaces a link's scheduled repoints with schedule: [{at, destination}] (at in epoch milliseconds, in the " +
    "future; at most 20; an empty list removes them). From each at on, the code points at that destination and " +
    "keeps resolving; to add one, send the link's current schedule (get_link) with it. Each destination is vetted " +
    "like a repoint. Takes only id and schedule. Needs an active subscription. Returns the Link: destination as it " +
    "is now, schedule still to come.",
  fields: ["schedule"],
  required: ["schedule"],
  hints: { destructive: false, idempotent: true },
  run: async ({ id, schedule }, { principal }) => toLinkView(await editLink(principal, id, { schedule })),
});

export const setLinkPasswordTool = defineTool(linkOperations.updateLink, {
  name: "set_link_password",
  description:
    "Sets a link's password (4 to 200 characters), or removes it with null. Visitors then get a page asking for " +
    "it before the redirect, and scripts may send it in a Link-Password header; the password is kept as a salted " +
    "hash and never shown back (the Link says password_protected). The code and its destination do not change. " +
    "Takes only id and password.",
  fields: ["password"],
  required: ["password"],
  hints: { destructive: false, idempotent: true },
  run: async ({ id, password }, { principal }) => toLinkView(await editLink(principal, id, { password })),
});

export const setScanLimitTool = defineTool(linkOperations.updateLink, {
  name: "set_scan_limit",
  description:
    "Sets a link's scan limit, scan_limit: {after, destination}: after that many more scans (counted exactly, in the " +
    "database) the link points at destination from then on, and the code keeps resolving; null removes it. The " +
    "destination is vetted like a repoint. Takes only id and scan_limit. Needs an active subscription. Returns the " +
    "Link, whose scan_limit shows the scans counted so far.",
  fields: ["scan_limit"],
  required: ["scan_limit"],
  hints: { destructive: false, idempotent: true },
  run: async ({ id, scan_limit }, { principal }) => toLinkView(await editLink(principal, id, { scan_limit })),
});

export const setLinkPreviewTool = defineTool(linkOperations.updateLink, {
  name: "set_link_preview",
  description:
    "Sets the social preview link-preview crawlers (Slack, X, Facebook, LinkedIn, Discord, WhatsApp, iMessage, " +
    "Telegram) are shown for a link instead of the redirect: preview: {title, description, image_url}. A part left " +
    "out is kept, null removes it; image_url may only be null (remove the uploaded image) or the address the Link " +
    "already shows; preview null removes it all. People still go straight to the destination, and a crawler's visit " +
    "is counted in preview_count, never as a scan. A password link shows no preview. Takes only id and preview.",
  fields: ["preview"],
  required: ["preview"],
  hints: { destructive: false, idempotent: true },
  run: async ({ id, preview }, { principal }) => toLinkView(await editLink(principal, id, { preview })),
});

export const bulkCreateLinksTool = defineTool(linkOperations.bulkCreateLinks, {
  name: "bulk_create_links",
  description:
    "Creates several links at once: links is a list of create_link's arguments ({destination, slug?, domain_id?, " +
    "tags?, title?}), made in order with the same rules, each spending one write. Returns results: for each item its " +
    "index, the status POST /api/links would have answered (201 created, 200 an existing link to the same " +
    "destination, or 400, 402, 404, 409, 422, 429) and the link or the error sentence; a refused item leaves the " +
    "others as they are.",
  hints: { destructive: false },
  run: (input, { principal }) => createLinksInBulk(principal, input),
});

export const archiveLinkTool = defineTool(linkOperations.archiveLink, {
  name: "archive_link",
  description:
    "Takes a link out of the list; its code keeps resolving. Archiving an archived link changes nothing. " +
    "Needs no subscription.",
  hints: { destructive: false, idempotent: true },
  run: async (input, { principal }) => toLinkView(await archive(principal, input.id)),
});

export const restoreLinkTool = defineTool(linkOperations.restoreLink, {
  name: "restore_link",
  description:
    "Undoes archive_link: the link is back in the list (archived_at null). Restoring a live link changes nothing. " +
    "Needs no subscription.",
  hints: { destructive: false, idempotent: true },
  run: async (input, { principal }) => toLinkView(await restore(principal, input.id)),
});

export const getQrTool = defineTool(getQrCode, {
  name: "get_qr",
  description:
    "Draws the link's QR code and returns it as an image: the same options as GET /api/links/{id}/qr " +
    "(format svg by default, or png for clients that show only raster images; size, margin, fg, bg, level, logo). " +
    "The code encodes the short_url with the scan marker ?qr.",
  run: async ({ id, ...options }, { principal, request }) => {
    const artwork = await linkArtwork(principal, id, options, hashedClientNetwork(request));
    const { body } = await artwork.load();
    return { content: [{ type: "image", data: body.toString("base64"), mimeType: artwork.contentType }] };
  },
});

export const getAnalyticsTool = defineTool(getAnalytics, {
  name: "get_analytics",
  description:
    "Scans of one link (link_id) or of the whole workspace, with the same parameters as GET /api/analytics: " +
    "group_by day or hour in a time zone (every bucket, zeros included) or country, device, browser, os, referrer, " +
    "source (qr or link) or link (most scans first); start and end as ISO 8601 dates or times (default: the last " +
    "30 days); timezone (IANA, default UTC); at most one filter (country, device, browser, os, referrer or source) " +
    "to count only the scans with that value. Bots and link previews are counted apart (total.bots). The structured " +
    "result is always the JSON report; format csv puts the rows as CSV in the text.",
  run: async (input, { principal }) => {
    const report = await scanAnalytics(principal, input);
    const text = input.format === "csv" ? analyticsCsv(report) : JSON.stringify(report);
    return { content: [{ type: "text", text }], structuredContent: report };
  },
});

export const listDomainsTool = defineTool(domainOperations.listDomains, {
  name: "list_domains",
  description:
    "Lists the workspace's custom domains, most recent first, verified or not, as GET /api/domains does: each with " +
    "the DNS records to create (dns), where its DNS and certificate stand (hostname_status, cert_status), what is " +
    "wrong in words (validation_errors) and one sentence saying what to do now (next). Pass a verified domain's id " +
    "as create_link's domain_id to make links on that hostname.",
  run: (_input, { principal }) => listDomains(principal),
});

export const setDomainDestinationsTool = defineTool(domainOperations.updateDomain, {
  name: "set_domain_destinations",
  description:
    "Sets where a verified custom domain sends a visit of its root (https://go.example.com/) and of a code it does " +
    "not have, as PATCH /api/domains/{id} does: root_destination and not_found_destination, each a destination " +
    "vetted like a link's; null puts back the service's own page, and a field left out stays as it is. A code that " +
    "exists always answers for itself. Owners and admins only; the domain must be verified (list_domains).",
  hints: { destructive: false, idempotent: true },
  run: ({ id, ...destinations }, { principal }) => updateDomain(principal, id, destinations),
});

export const listWebhooksTool = defineTool(webhookOperations.listWebhooks, {
  name: "list_webhooks",
  description:
    "Lists the workspace's webhook endpoints, most recent first, as GET /api/webhooks does: url, events, " +
    "description and whether it is disabled; never a signing secret. Owners and admins only.",
  run: (_input, { principal }) => listWebhooks(principal),
});

export const listTagsTool = defineTool(tagOperations.listTags, {
  name: "list_tags",
  description:
    "Lists the workspace's tags by name, each with its id and colour. Name tags in create_link's or " +
    "bulk_create_links' tags (a new name creates the tag) and in list_links' tag to filter.",
  run: (_input, { principal }) => listTags(principal),
});

export const startImportTool = defineTool(importOperations.startImport, {
  name: "start_import",
  description:
    "Imports links from another service's export, as POST /api/imports does: file is the CSV or JSON text " +
    "(file_type csv or json) from Bitly, Dub, Rebrandly, Short.io, Shlink, Kutt or any file with a destination " +
    "column. Rows whose short link is on a verified custom domain of the workspace (or on domain_id) keep their " +
    'slug there; others get a new slug. dry_run "1" checks and counts without writing. Runs in the background: ' +
    "returns the Import (status queued); follow it with get_import. Owners, admins and API keys. An MCP message " +
    "is at most 16 KiB, so send larger files to POST /api/imports.",
  arguments: {
    file: z
      .string({ error: "must be a string" })
      .min(1, "must not be empty")
      .meta({ description: "the export's text, CSV (with its header row) or JSON" }),
    file_type: z
      .enum(["csv", "json"], { error: "must be csv or json" })
      .default("csv")
      .meta({ description: "csv (default) or json" }),
  },
  hints: { destructive: false },
  run: ({ file, file_type, ...query }, { principal }) =>
    startImport(principal, query, async () => ({ text: file, mediaType: file_type })),
});

export const getImportTool = defineTool(importOperations.getImport, {
  name: "get_import",
  description:
    "Reads an import started with start_import or POST /api/imports: status (queued, running, done, failed), " +
    "total, processed, created, skipped (already imported), failed, and each failed row's number and sentence.",
  run: (input, { principal }) => getImport(principal, input.id),
});

export const getAccountTool = defineTool(billingOperations.describeAccount, {
  name: "get_account",
  description:
    "The workspace's plan, subscription status, billing cycle, links created this cycle, cap and remaining, " +
    "and what the caller may do now (can).",
  run: (_input, { principal }) => describeAccount(principal),
});

export const buyLinkTool = defineTool(linkOperations.createLink, {
  name: "buy_link",
  title: "Buy a permanent link (no account needed)",
  description:
    "Buys one permanent short link with a machine payment; no credentials needed. The first call answers with a " +
    'payment-required error carrying both challenges: MPP (_meta["org.paymentauth/credential"] on the retry; ' +
    'mppx\'s McpClient does it) and x402 (_meta["x402/payment"]). Pay either and call again with the same ' +
    "arguments: the result is the PaidLink, with api_key on the wallet's first purchase (use it as the Bearer " +
    "credential to list and repoint the links it bought). Every check that can refuse the link (invalid " +
    "destination or slug, slug taken, unsafe destination) is made before any challenge, so nothing is paid for a " +
    "link that cannot be made; a payment buys exactly one link, however often it is sent.",
  output: paidLinkSchema,
  anyone: true,
  hints: { destructive: false, idempotent: true, openWorld: true },
  run: (input, { meta }) => buyLinkByToolCall(input, meta),
});
