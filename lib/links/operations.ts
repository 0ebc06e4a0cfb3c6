import {
  defineOperation,
  download,
  failure,
  IF_NONE_MATCH_PARAMETER,
  NOT_MODIFIED,
  ok,
  type ParameterSpec,
  paymentChallenge,
  paymentRequired,
} from "@/lib/http/operation";
import { linkHistoryQuery, linkHistorySchema } from "./history-schemas";
import {
  bulkCreateBody,
  bulkResultSchema,
  createLinkBody,
  linkListSchema,
  linkSchema,
  listLinksQuery,
  MAX_LIST_SIZE,
  paidLinkSchema,
  previewImageQuery,
  scheduledRepointRunSchema,
  updateLinkBody,
} from "./schemas";

export const LINK_ID_PARAMETER = {
  name: "id",
  in: "path",
  required: true,
  description: "the link's id, as returned at creation",
} as const satisfies ParameterSpec;

export const createLink = defineOperation({
  method: "post",
  path: "/api/links",
  auth: "payment_or_workspace",
  scope: "links:write",
  operationId: "createLink",
  summary: "Create a permanent link",
  description:
    "Creates a link in quarantine (status 1). With an API key or session token the link belongs to " +
    "the workspace; without a custom slug, if a live link of this workspace already points at the " +
    "same normalised destination on the same host, that link is returned with 200 instead of a " +
    "duplicate. Without credentials the answer is 402 with a payment challenge in two headers (MPP " +
    "and x402); paying either one and sending the same request again buys the link (201 PaidLink). " +
    "Every validation (400, 409, 422) is decided before any challenge, so a request that cannot " +
    "succeed is never paid for.",
  tag: "Links",
  write: true,
  body: createLinkBody,
  responses: {
    201: {
      description:
        "The link was created: a Link with an API key or session token, a PaidLink when the request paid " +
        "(with the payment's receipt headers).",
      headers: { "Payment-Receipt": "PaymentReceipt", "PAYMENT-RESPONSE": "PaymentResponse" },
      body: [linkSchema, paidLinkSchema],
    },
    200: ok(
      "An allocated-slug link of this workspace already pointed at this destination on this host; it is returned instead of a duplicate.",
      linkSchema,
    ),
    400: failure(
      "The body failed validation, is not JSON, or the destination is malformed; or a paid link " +
        "without an account named a domain_id, a title, tags, a password, a scan limit or a preview (those need an account).",
    ),
    402: paymentChallenge(
      "Without credentials: the challenge, or a payment credential that could not pay (the error says " +
        "why, with a fresh challenge). With a bearer credential, pay names the way forward: subscribe " +
        "(no active subscription), upgrade (the plan's link allowance for this cycle is spent) or mpp " +
        "and x402 (a machine account's key: buy each link without Authorization). Existing links keep " +
        "resolving.",
    ),
    403: failure("Your role in this workspace does not allow creating links."),
    404: failure("domain_id names no custom domain of this workspace."),
    409: failure(
      "The custom slug is already taken on this host; or domain_id names a domain that is not verified " +
        "yet; or the same payment credential is still being settled by an earlier request (Retry-After).",
    ),
    422: failure(
      "A destination (the link's, a rule's or a scheduled one, named in the sentence) was refused " +
        "(internal or private address, cloud metadata endpoint, userinfo in the URL) or failed a safety " +
        "check.",
    ),
    503: failure("Sent without credentials to a deployment that does not take machine payments."),
  },
});

export const bulkCreateLinks = defineOperation({
  method: "post",
  path: "/api/links/bulk",
  auth: "workspace",
  scope: "links:write",
  operationId: "bulkCreateLinks",
  summary: "Create up to 100 links at once",
  description:
    "Creates each item of links as POST /api/links would, in order, with the same rules " +
    "(destination, safety checks, slug, same-destination reuse, the plan's allowance) and one write " +
    "from the workspace's budget per item. The answer is 200 with each item's own outcome: status " +
    "201 (created) or 200 (an existing link to the same destination) with the link, or 400, 402, " +
    "404, 409, 422 or 429 with the error sentence that request would have had. An item refused " +
    "leaves the others as they are.",
  tag: "Links",
  write: true,
  body: bulkCreateBody,
  responses: {
    200: ok("Each item's outcome, in the order sent.", bulkResultSchema),
    400: failure("The body is not JSON, or links is not an array of 1 to 100 items."),
    403: failure("Your role in this workspace does not allow creating links."),
  },
});

export const listLinks = defineOperation({
  method: "get",
  path: "/api/links",
  auth: "workspace",
  scope: "links:read",
  operationId: "listLinks",
  summary: "List links",
  description:
    `Live links of the workspace, most recent first; archived links are left out. At most ` +
    `${MAX_LIST_SIZE} per page; follow next_cursor for more. tag (repeatable, compared without ` +
    `regard to case) keeps the links that carry every tag named.`,
  tag: "Links",
  query: listLinksQuery,
  queryDescriptions: { limit: `page size; defaults to ${MAX_LIST_SIZE}` },
  responses: {
    200: ok("A page of links.", linkListSchema),
    400: failure("The query string failed validation, or the cursor was not issued by this service."),
  },
});

export const getLink = defineOperation({
  method: "get",
  path: "/api/links/{id}",
  auth: "workspace",
  scope: "links:read",
  operationId: "getLink",
  summary: "Get a link",
  description: "Any link of the workspace, archived ones included.",
  tag: "Links",
  parameters: [LINK_ID_PARAMETER],
  responses: {
    200: ok("The link.", linkSchema),
    404: failure("No link with this id exists in this workspace."),
  },
});

export const getLinkHistory = defineOperation({
  method: "get",
  path: "/api/links/{id}/history",
  auth: "workspace",
  scope: "links:read",
  query: linkHistoryQuery,
  operationId: "getLinkHistory",
  summary: "A link's history",
  description:
    "Every change to the link since it was made, newest first: what changed (created, edited, a scheduled " +
    "repoint applied, archived, restored, status changed), through which door, by whom, and the link's " +
    "destination, status, title, tags, rules, schedule and archive time before and after. Rows are written " +
    "with the change, in its transaction, and never edited or deleted; archived links keep theirs.",
  tag: "Links",
  parameters: [LINK_ID_PARAMETER],
  responses: {
    200: ok("A page of the link's history.", linkHistorySchema),
    400: failure("The limit or the cursor is not valid."),
    404: failure("No link with this id exists in this workspace."),
  },
});

export const updateLink = defineOperation({
  method: "patch",
  path: "/api/links/{id}",
  auth: "workspace",
  scope: "links:write",
  operationId: "updateLink",
  summary: "Repoint, retitle, retag, route or schedule a link",
  description:
    "Changes what the body names, in one step: destination points the code at a new destination (the " +
    "slug never changes; a repointed link goes back to quarantine, status 1), title replaces the " +
    "title (null removes it), tags replaces the link's set of tags (names new to the workspace " +
    "create the tag). rules replaces the link's routing rules (at most 20; the first whose " +
    "conditions all hold sends the visit to its destination; an empty list removes them; a change " +
    "puts the link back in quarantine), schedule replaces its scheduled repoints (at most 20, each " +
    "in the future: from each one's time on the link points at its destination). preview sets what " +
    "link-preview crawlers are shown (title and description; image_url null removes the image " +
    "uploaded with PUT /api/links/{id}/preview/image; preview null removes it all). A new destination, " +
    "rules or schedule need an active subscription, except for a machine account's key, which " +
    "repoints the links it bought; a title, tags or preview need none.",
  tag: "Links",
  write: true,
  parameters: [LINK_ID_PARAMETER],
  body: updateLinkBody,
  responses: {
    200: ok("The repointed link.", linkSchema),
    400: failure(
      "The body failed validation (it must name destination, title, tags, rules, schedule, password, " +
        "scan_limit or preview), is not JSON, a destination is malformed, a scheduled time is not in the " +
        "future, or preview.image_url is not the link's own uploaded image.",
    ),
    402: paymentRequired(
      "A new destination, and the workspace has no active subscription (pay: subscribe). The link " +
        "keeps resolving to its current destination.",
    ),
    403: failure("Members may edit only the links they created."),
    404: failure("No link with this id exists in this workspace."),
    409: failure("The link was blocked for abuse and cannot be repointed."),
    422: failure(
      "The destination was refused (internal or private address, cloud metadata endpoint, userinfo in the URL) or failed a safety check.",
    ),
  },
});

export const archiveLink = defineOperation({
  method: "delete",
  path: "/api/links/{id}",
  auth: "workspace",
  scope: "links:write",
  operationId: "archiveLink",
  summary: "Archive a link",
  description:
    "Takes the link out of the list. The code keeps resolving. Archiving an archived link is " +
    "harmless and returns it unchanged. Needs no subscription: it changes no destination.",
  tag: "Links",
  write: true,
  parameters: [LINK_ID_PARAMETER],
  responses: {
    200: ok("The link, with archived_at set.", linkSchema),
    403: failure("Members may archive only the links they created."),
    404: failure("No link with this id exists in this workspace."),
  },
});

export const restoreLink = defineOperation({
  method: "post",
  path: "/api/links/{id}/restore",
  auth: "workspace",
  scope: "links:write",
  operationId: "restoreLink",
  summary: "Restore an archived link",
  description:
    "Undoes an archive: the link is back in the list (archived_at null). Restoring a live link is " +
    "harmless and returns it unchanged. If another live link was created for the same destination " +
    "while this one was archived, that one stays the link a create without slug returns. Needs no " +
    "subscription: it changes no destination.",
  tag: "Links",
  write: true,
  parameters: [LINK_ID_PARAMETER],
  responses: {
    200: ok("The link, with archived_at null.", linkSchema),
    403: failure("Members may restore only the links they created."),
    404: failure("No link with this id exists in this workspace."),
  },
});

export const applyScheduledRepoints = defineOperation({
  method: "get",
  path: "/api/cron/repoints",
  auth: "cron",
  operationId: "applyScheduledRepoints",
  summary: "Write in scheduled repoints that are due (cron)",
  description:
    "Visits follow a scheduled repoint from its time on by themselves (resolution picks the " +
    "destination by the clock); this pass writes each due repoint into its link (the link goes back " +
    "to quarantine, as after any repoint) and announces it as link.updated. The self-hosted server " +
    "runs it every SCHEDULED_REPOINT_INTERVAL_SECONDS by itself. Safe to run any number of times and " +
    "on several instances at once.",
  tag: "Operations",
  responses: { 200: ok("What this run did.", scheduledRepointRunSchema) },
});

export const getPreviewImage = defineOperation({
  method: "get",
  path: "/api/links/{id}/preview/image",
  auth: "public",
  operationId: "getPreviewImage",
  summary: "A link's preview image",
  description:
    "The image a link's social preview names (og:image), as link-preview crawlers fetch it: open to " +
    "anyone, no credentials, from the service's own origin. The address carries the image's version " +
    "(?v=), under which it is cached for a year; without it, for five minutes. A password link's " +
    "image is never served.",
  tag: "Links",
  parameters: [LINK_ID_PARAMETER, IF_NONE_MATCH_PARAMETER],
  query: previewImageQuery,
  responses: {
    200: download("The image.", ["image/jpeg"], false),
    304: NOT_MODIFIED,
    404: failure("No link with this id has a preview image (or it is password-protected)."),
  },
});
