import { z } from "zod";
import { getAnalytics as getAnalyticsOperation } from "@/lib/analytics/operations";
import { analyticsQuery, analyticsSchema } from "@/lib/analytics/schemas";
import { analyticsCsv, scanAnalytics } from "@/lib/analytics/service";
import { describeAccount as describeAccountOperation } from "@/lib/billing/operations";
import { accountSchema } from "@/lib/billing/schemas";
import { describeAccount } from "@/lib/billing/service";
import * as linkOperations from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import { listDomains as listDomainsOperation } from "@/lib/domains/operations";
import { domainListSchema } from "@/lib/domains/schemas";
import { listDomains } from "@/lib/domains/service";
import { createLinkBody, linkListSchema, linkSchema, listLinksQuery, paidLinkSchema, updateLinkBody } from "@/lib/links/schemas";
import { archive, createLink, editLink, getLink, listLinks, restore } from "@/lib/links/service";
import { buyLinkByToolCall } from "@/lib/payments/tool-call";
import { getQrCode } from "@/lib/qr/operations";
import { qrQuery } from "@/lib/qr/schemas";
import { linkArtwork } from "@/lib/qr/service";
import { hashedClientNetwork } from "@/lib/http/client-address";
import { defineTool, type ToolSpec } from "./tool";

/** The path parameter {id} of the link operations, as a tool argument. */
const linkId = {
  id: z
    .string({ error: "must be a string" })
    .min(1, "must not be empty")
    .meta({ description: "the link's id, as returned at creation" }),
};

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

export const createLinkTool = defineTool({
  name: "create_link",
  title: "Create a permanent link",
  description:
    "Creates a permanent short link in your workspace (needs a Bearer credential and an active subscription; a machine account buys each link with buy_link instead). The link starts in quarantine (status 1): it resolves normally while each visit runs a live safety check. Without slug, an existing live link of the workspace to the same destination is returned instead of a duplicate. Returns the Link with its short_url.",
  operation: linkOperations.createLink,
  anyone: false,
  input: createLinkBody,
  output: linkSchema,
  annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: async (input, principal) => toLinkView((await createLink(principal, input)).link),
});

export const listLinksTool = defineTool({
  name: "list_links",
  title: "List links",
  description:
    "Lists the workspace's live links, most recent first (archived links are left out), at most 200 per page; pass next_cursor as cursor for the next page.",
  operation: linkOperations.listLinks,
  anyone: false,
  input: listLinksQuery,
  output: linkListSchema,
  annotations: READ_ONLY,
  run: (input, principal) => listLinks(principal, input),
});

export const getLinkTool = defineTool({
  name: "get_link",
  title: "Get a link",
  description: "Reads one link of the workspace by id, archived links included.",
  operation: linkOperations.getLink,
  anyone: false,
  input: z.strictObject(linkId),
  output: linkSchema,
  annotations: READ_ONLY,
  run: async (input, principal) => toLinkView(await getLink(principal, input.id)),
});

export const repointLinkTool = defineTool({
  name: "repoint_link",
  title: "Repoint a link",
  description:
    "Points an existing code at a new destination; the slug and short_url never change, and the next visit goes to the new destination. The link goes back to quarantine (status 1). Needs an active subscription, except for a machine account's key, which repoints the links it bought.",
  operation: linkOperations.updateLink,
  anyone: false,
  input: z.strictObject({ ...linkId, ...updateLinkBody.shape, destination: updateLinkBody.shape.destination.unwrap() }),
  output: linkSchema,
  annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (input, principal) => toLinkView(await editLink(principal, input.id, input)),
});

export const archiveLinkTool = defineTool({
  name: "archive_link",
  title: "Archive a link",
  description:
    "Takes a link out of the list; its code keeps resolving. Archiving an archived link changes nothing. Needs no subscription.",
  operation: linkOperations.archiveLink,
  anyone: false,
  input: z.strictObject(linkId),
  output: linkSchema,
  annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (input, principal) => toLinkView(await archive(principal, input.id)),
});

export const restoreLinkTool = defineTool({
  name: "restore_link",
  title: "Restore an archived link",
  description:
    "Undoes archive_link: the link is back in the list (archived_at null). Restoring a live link changes nothing. Needs no subscription.",
  operation: linkOperations.restoreLink,
  anyone: false,
  input: z.strictObject(linkId),
  output: linkSchema,
  annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (input, principal) => toLinkView(await restore(principal, input.id)),
});

export const getQrTool = defineTool({
  name: "get_qr",
  title: "Get a link's QR code",
  description:
    "Draws the link's QR code and returns it as an image: the same options as GET /api/links/{id}/qr (format svg by default, or png for clients that show only raster images; size, margin, fg, bg, level, logo). The code encodes the short_url with the scan marker ?qr.",
  operation: getQrCode,
  anyone: false,
  input: z.strictObject({ ...linkId, ...qrQuery.shape }),
  annotations: READ_ONLY,
  run: async ({ id, ...options }, principal, { request }) => {
    const artwork = await linkArtwork(principal, id, options, hashedClientNetwork(request));
    const { body } = await artwork.load();
    return { content: [{ type: "image", data: body.toString("base64"), mimeType: artwork.contentType }] };
  },
});

export const getAnalyticsTool = defineTool({
  name: "get_analytics",
  title: "Scan analytics",
  description:
    "Scans of one link (link_id) or of the whole workspace, with the same parameters as GET /api/analytics: group_by day or hour in a time zone (every bucket, zeros included) or country, device, browser, os, referrer, source (qr or link) or link (most scans first); start and end as ISO 8601 dates or times (default: the last 30 days); timezone (IANA, default UTC). Bots and link previews are counted apart (total.bots). The structured result is always the JSON report; format csv puts the rows as CSV in the text.",
  operation: getAnalyticsOperation,
  anyone: false,
  input: analyticsQuery,
  output: analyticsSchema,
  annotations: READ_ONLY,
  run: async (input, principal) => {
    const report = await scanAnalytics(principal, input);
    const text = input.format === "csv" ? analyticsCsv(report) : JSON.stringify(report);
    return { content: [{ type: "text", text }], structuredContent: report };
  },
});

export const listDomainsTool = defineTool({
  name: "list_domains",
  title: "List custom domains",
  description:
    "Lists the workspace's custom domains, most recent first, verified or not, as GET /api/domains does: each with the DNS records to create (dns), where its DNS and certificate stand (hostname_status, cert_status), what is wrong in words (validation_errors) and one sentence saying what to do now (next). Pass a verified domain's id as create_link's domain_id to make links on that hostname.",
  operation: listDomainsOperation,
  anyone: false,
  input: z.strictObject({}),
  output: domainListSchema,
  annotations: READ_ONLY,
  run: (_input, principal) => listDomains(principal),
});

export const getAccountTool = defineTool({
  name: "get_account",
  title: "Describe the account",
  description:
    "The workspace's plan, subscription status, billing cycle, links created this cycle, cap and remaining, and what the caller may do now (can).",
  operation: describeAccountOperation,
  anyone: false,
  input: z.strictObject({}),
  output: accountSchema,
  annotations: READ_ONLY,
  run: (_input, principal) => describeAccount(principal),
});

export const buyLinkTool = defineTool({
  name: "buy_link",
  title: "Buy a permanent link (no account needed)",
  description:
    'Buys one permanent short link with a machine payment; no credentials needed. The first call answers with a payment-required error carrying both challenges: MPP (_meta["org.paymentauth/credential"] on the retry; mppx\'s McpClient does it) and x402 (_meta["x402/payment"]). Pay either and call again with the same arguments: the result is the PaidLink, with api_key on the wallet\'s first purchase (use it as the Bearer credential to list and repoint the links it bought). Every check that can refuse the link (invalid destination or slug, slug taken, unsafe destination) is made before any challenge, so nothing is paid for a link that cannot be made; a payment buys exactly one link, however often it is sent.',
  operation: linkOperations.createLink,
  anyone: true,
  input: createLinkBody,
  output: paidLinkSchema,
  annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (input, _caller, context) => buyLinkByToolCall(input, context.meta),
});

/** Every tool, in the order tools/list gives them. */
export const TOOLS: readonly ToolSpec[] = [
  createLinkTool,
  listLinksTool,
  getLinkTool,
  repointLinkTool,
  archiveLinkTool,
  restoreLinkTool,
  getQrTool,
  getAnalyticsTool,
  listDomainsTool,
  getAccountTool,
  buyLinkTool,
] as unknown as readonly ToolSpec[];
