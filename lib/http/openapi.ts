import { z } from "zod";
import {
  abuseQueueEntrySchema,
  abuseQueueQuery,
  abuseQueueSchema,
  abuseReportBody,
  abuseReportReceiptSchema,
  linkStatusChangeBody,
  linkStatusSchema,
  MAX_QUEUE_PAGE,
  pendingReportSchema,
  REPORTS_PER_MINUTE,
} from "@/lib/abuse/schemas";
import { claimResponseSchema, revokeResponseSchema } from "@/lib/auth/schemas";
import {
  accountSchema,
  checkoutBody,
  checkoutResponseSchema,
  MAX_WEBHOOK_BYTES,
  portalResponseSchema,
  webhookReceiptSchema,
} from "@/lib/billing/schemas";
import { config } from "@/lib/config";
import {
  createLinkBody,
  linkListItemSchema,
  linkListSchema,
  linkSchema,
  listLinksQuery,
  MAX_LIST_SIZE,
  updateLinkBody,
} from "@/lib/links/schemas";
import { paidLinkSchema, recoverKeyBody, recoveryNonceSchema } from "@/lib/payments/schemas";
import { LOGO_UPLOAD_TYPES, logoResponseSchema, MAX_LOGO_SOURCE_PIXELS } from "@/lib/logos/schemas";
import { MIN_CONTRAST_RATIO } from "@/lib/qr/contrast";
import { qrQuery } from "@/lib/qr/schemas";
import { recheckTotalsSchema } from "@/lib/resolution/recheck";
import { memberListSchema, memberSchema, workspaceReportSchema } from "@/lib/workspaces/schemas";
import { MAX_JSON_BODY_BYTES } from "./body";
import { paymentRequiredSchema } from "./payment-required";
import { errorSchema } from "./schemas";

export const API_VERSION = "2026-08-21";

export type JsonSchema = z.core.JSONSchema.JSONSchema;
export type Reference = { $ref: string };
export type Parameter = {
  name: string;
  in: "query" | "path" | "header";
  required: boolean;
  description?: string;
  schema: JsonSchema;
};
export type Header = { description: string; schema: JsonSchema };
export type Content = Record<string, { schema: JsonSchema }>;
export type ResponseObject = { description: string; headers?: Record<string, Reference>; content?: Content };
export type RequestBody = { required: boolean; content: Content };
export type SecurityRequirement = Record<string, string[]>;
/**
 * Which bearer credentials an operation accepts; OpenAPI's one bearer scheme cannot tell the
 * workspace credentials apart. operator and cron are the deployment's own secrets.
 */
export type Credentials = "api_key_or_session" | "api_key" | "session" | "none" | "operator" | "cron" | "stripe_signature";
export type Operation = {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: SecurityRequirement[];
  "x-credentials": Credentials;
  parameters: (Parameter | Reference)[];
  requestBody?: RequestBody;
  responses: Record<string, ResponseObject>;
  /** On an operation an agent can pay for without an account: what it costs and how to pay. */
  "x-payment"?: PaymentExtension;
};
export type PaymentExtension = {
  protocols: ("mpp" | "x402")[];
  price: string;
  currency: string;
  network: string;
  asset: string;
  challenge: string;
  docs: string;
};
export const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export type PathItem = Partial<Record<HttpMethod, Operation>>;
export type Tag = { name: string; description: string };
export type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  tags: Tag[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, { type: "http"; scheme: "bearer" | "payment"; description: string }>;
    parameters: Record<string, Parameter>;
    headers: Record<string, Header>;
  };
};

/** Request bodies are described as the handlers parse them; response bodies as they are sent. */
const REQUEST_SCHEMAS = [createLinkBody, updateLinkBody, abuseReportBody, linkStatusChangeBody, checkoutBody, recoverKeyBody];
const RESPONSE_SCHEMAS = [
  errorSchema,
  paymentRequiredSchema,
  linkSchema,
  paidLinkSchema,
  linkListItemSchema,
  linkListSchema,
  claimResponseSchema,
  revokeResponseSchema,
  recoveryNonceSchema,
  workspaceReportSchema,
  memberSchema,
  memberListSchema,
  abuseReportReceiptSchema,
  pendingReportSchema,
  abuseQueueEntrySchema,
  abuseQueueSchema,
  linkStatusSchema,
  recheckTotalsSchema,
  checkoutResponseSchema,
  portalResponseSchema,
  accountSchema,
  webhookReceiptSchema,
  logoResponseSchema,
];

const JSON_MEDIA_TYPE = "application/json";
const BEARER: SecurityRequirement[] = [{ bearerAuth: [] }];

const SECURITY: Record<Credentials, SecurityRequirement[]> = {
  api_key_or_session: BEARER,
  api_key: BEARER,
  session: BEARER,
  none: [],
  operator: [{ operatorAuth: [] }],
  cron: [{ cronAuth: [] }],
  stripe_signature: [],
};

const TAGS: Tag[] = [
  { name: "Links", description: "Create, read, repoint and archive permanent short links." },
  { name: "QR codes", description: "A link's QR artwork, and the centre logos it can carry." },
  { name: "API keys", description: "Mint, rotate and revoke the workspace's API key; recover a machine account's key by signing in with its wallet." },
  { name: "Workspaces", description: "The workspace a call acts on, and its members." },
  { name: "Billing", description: "Subscriptions in Australian dollars: checkout, the billing portal, the account's tier and quota, and Stripe's webhook." },
  { name: "Abuse", description: "Reporting abusive links, and the operator's review of them." },
  { name: "Operations", description: "Jobs the deployment runs on a schedule." },
  { name: "Meta", description: "This description of the API." },
];

export function openApiDocument(): OpenApiDocument {
  const { BASE_URL, API_KEY_PREFIX } = config();
  return {
    openapi: "3.1.1",
    info: { title: "Permalink API", version: API_VERSION, description: apiDescription() },
    servers: [{ url: BASE_URL, description: "this deployment" }],
    tags: TAGS,
    paths: {
      "/api/links": { post: createLinkOperation(), get: listLinksOperation() },
      "/api/links/{id}": { get: getLinkOperation(), patch: updateLinkOperation(), delete: archiveLinkOperation() },
      "/api/links/{id}/qr": { get: getQrCodeOperation() },
      "/api/links/{id}/logo": { get: getLinkLogoOperation(), put: setLinkLogoOperation(), delete: removeLinkLogoOperation() },
      "/api/workspaces/logo": { get: getWorkspaceLogoOperation(), put: setWorkspaceLogoOperation(), delete: removeWorkspaceLogoOperation() },
      "/api/billing/claim": { post: claimKeyOperation(), delete: revokeKeyOperation() },
      "/api/keys/rotate": { post: rotateKeyOperation() },
      "/api/machine-accounts/nonce": { get: recoveryNonceOperation() },
      "/api/machine-accounts/key": { post: recoverMachineKeyOperation() },
      "/api/billing/checkout": { post: startCheckoutOperation() },
      "/api/billing/portal": { post: openBillingPortalOperation() },
      "/api/billing/webhook": { post: stripeWebhookOperation() },
      "/api/account": { get: describeAccountOperation() },
      "/api/workspaces": { get: describeWorkspaceOperation() },
      "/api/members": { get: listMembersOperation() },
      "/api/abuse-reports": { post: reportAbuseOperation() },
      "/api/operator/abuse-reports": { get: listAbuseQueueOperation() },
      "/api/operator/links/{id}/status": { put: setLinkStatusOperation() },
      "/api/cron/recheck": { get: recheckOperation() },
      "/api/openapi.json": { get: openApiOperation() },
    },
    components: {
      schemas: { ...convertSchemas(RESPONSE_SCHEMAS, "output"), ...convertSchemas(REQUEST_SCHEMAS, "input") },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: `An API key (\`${API_KEY_PREFIX}_…\`) or a session JWT from the dashboard's identity provider. Both resolve to the same workspace and behave identically, except that only a session token can claim or revoke a key, and only a key can rotate itself.`,
        },
        operatorAuth: { type: "http", scheme: "bearer", description: "The deployment's OPERATOR_TOKEN, held by the people who review abuse." },
        cronAuth: { type: "http", scheme: "bearer", description: "The deployment's CRON_SECRET, which Vercel Cron sends with each scheduled call." },
        paymentAuth: {
          type: "http",
          scheme: "payment",
          description: "A machine payment answering the 402 challenge: an MPP credential (`Authorization: Payment <credential>`), or an x402 payload (`PAYMENT-SIGNATURE`, also accepted as `Authorization: Payment`). No account needed.",
        },
      },
      parameters: { WorkspaceId: workspaceIdParameter() },
      headers: RESPONSE_HEADERS,
    },
  };
}

function apiDescription(): string {
  return [
    "Permanent short links and QR codes. A code that has been issued never stops resolving: not when its destination changes, not when a subscription lapses, not when the link is archived.",
    "Every new link starts in quarantine (status 1): it resolves normally, but each resolution runs a live safety check until the link is released (three clean checks and at least seven days old). Destinations on internal or private addresses, cloud metadata endpoints, or carrying userinfo are refused.",
    "A link whose destination a live check finds malicious, or that an operator blocks, goes to abuse (status 2): it no longer redirects, and its short URL shows a warning page with the reason. Abuse reports alone never block a link: they trigger a live check and queue the link for an operator.",
    "Every failure has the body `{ \"error\": string }` with a real HTTP status code; the string is a sentence for a human, not something to switch on. Unknown paths under /api answer 404 with the same body.",
    "Creating and editing links with an API key or session token needs an active subscription (billed in Australian dollars: starter 19 a month with 100 new links per billing cycle, or unlimited 49 a month or 490 a year). Without one they answer 402 with a PaymentRequired body whose pay field names the way forward; signing in, listing, archiving, the billing portal and the resolution of every existing link never depend on it.",
    "An agent without an account buys one permanent link by answering the HTTP 402 payment challenge of POST /api/links (MPP or x402, see x-payment and /docs/payments); its first paid link also returns an API key for its machine account.",
  ].join("\n\n");
}

function createLinkOperation(): Operation {
  return operation({
    operationId: "createLink",
    summary: "Create a permanent link",
    description:
      "Creates a link in quarantine (status 1). With an API key or session token the link belongs to the workspace; without a custom slug, if a live link of this workspace already points at the same normalised destination on the same host, that link is returned with 200 instead of a duplicate. Without credentials the answer is 402 with a payment challenge in two headers (MPP and x402); paying either one and sending the same request again buys the link (201 PaidLink). Every validation (400, 409, 422) is decided before any challenge, so a request that cannot succeed is never paid for.",
    tag: "Links",
    write: true,
    body: createLinkBody,
    payment: paymentExtension(),
    responses: {
      201: {
        description: "The link was created: a Link with an API key or session token, a PaidLink when the request paid (with the payment's receipt headers).",
        headers: { "Payment-Receipt": ref("headers", "PaymentReceipt"), "PAYMENT-RESPONSE": ref("headers", "PaymentResponse") },
        content: { [JSON_MEDIA_TYPE]: { schema: { oneOf: [ref("schemas", schemaId(linkSchema)), ref("schemas", schemaId(paidLinkSchema))] } } },
      },
      200: jsonResponse("An allocated-slug link of this workspace already pointed at this destination on this host; it is returned instead of a duplicate.", linkSchema),
      400: failure("The body failed validation, is not JSON, or the destination is malformed; or domain_id names no verified custom domain of this workspace (a paid link without an account cannot use one)."),
      402: {
        description:
          "Without credentials: the challenge, or a payment credential that could not pay (the error says why, with a fresh challenge). With a bearer credential, pay names the way forward: subscribe (no active subscription), upgrade (the plan's link allowance for this cycle is spent) or mpp and x402 (a machine account's key: buy each link without Authorization). Existing links keep resolving.",
        headers: { "WWW-Authenticate": ref("headers", "PaymentChallenge"), "PAYMENT-REQUIRED": ref("headers", "PaymentRequired") },
        content: jsonContent(paymentRequiredSchema),
      },
      403: failure("Your role in this workspace does not allow creating links."),
      409: failure("The custom slug is already taken on this host; or the same payment credential is still being settled by an earlier request (Retry-After)."),
      422: failure("The destination was refused (internal or private address, cloud metadata endpoint, userinfo in the URL) or failed a safety check."),
      503: failure("Sent without credentials to a deployment that does not take machine payments."),
    },
  });
}

/** The price and the ways to pay, from the configuration (the recipient is named in each challenge). */
function paymentExtension(): PaymentExtension {
  const { LINK_PRICE, PAYMENT_ASSET_NAME, PAYMENT_NETWORK, PAYMENT_ASSET, BASE_URL } = config();
  return {
    protocols: ["mpp", "x402"],
    price: LINK_PRICE,
    currency: PAYMENT_ASSET_NAME,
    network: PAYMENT_NETWORK,
    asset: PAYMENT_ASSET,
    challenge:
      "402 carrying WWW-Authenticate: Payment (MPP, method evm, intent charge: an EIP-3009 authorization) and PAYMENT-REQUIRED (x402 version 2, scheme exact); retry with Authorization: Payment or PAYMENT-SIGNATURE.",
    docs: `${BASE_URL}/docs/payments`,
  };
}

function listLinksOperation(): Operation {
  return operation({
    operationId: "listLinks",
    summary: "List links",
    description: `Live links of the workspace, most recent first; archived links are left out. At most ${MAX_LIST_SIZE} per page; follow next_cursor for more.`,
    tag: "Links",
    parameters: queryParameters(listLinksQuery, { limit: `page size; defaults to ${MAX_LIST_SIZE}` }),
    responses: {
      200: jsonResponse("A page of links.", linkListSchema),
      400: failure("The query string failed validation, or the cursor was not issued by this service."),
    },
  });
}

function getQrCodeOperation(): Operation {
  return operation({
    operationId: "getQrCode",
    summary: "Download a link's QR code",
    description:
      `The code as SVG (default) or PNG, drawn on the server. It encodes the link's short_url with the scan marker \`?qr\` (visits through it count as QR scans; the marker is not passed on to the destination); a custom-domain link's code carries its own host. With logo=true the link's own logo, else the workspace's default, sits in the centre: the level is then at least Q (H by default), the modules under the logo are cleared, and the logo is never larger than the error correction can make up for. Colours that would not scan are refused: a foreground lighter than the background, or a WCAG contrast ratio under ${MIN_CONTRAST_RATIO}:1. Open to every role that can read the link, with or without an active subscription. Revalidate with If-None-Match: an unchanged drawing answers 304.`,
    tag: "QR codes",
    parameters: [LINK_ID_PARAMETER, ...queryParameters(qrQuery, {}), IF_NONE_MATCH_PARAMETER],
    responses: {
      200: binaryResponse("The artwork, as an attachment named qr-<slug>.svg or .png (qr-<host>-<slug> on a custom domain).", ["image/svg+xml", "image/png"], true),
      304: NOT_MODIFIED,
      400: failure("The query string failed validation, or the colours would not scan (foreground lighter than the background, or contrast under 3:1)."),
      404: failure("No link with this id exists in this workspace; or logo=true and neither the link nor its workspace has a logo."),
    },
  });
}

const LOGO_RULES = `Send the image itself as the body with its Content-Type (${LOGO_UPLOAD_TYPES.join(", ")}), at most 1 MiB. It is decoded and re-encoded as a PNG of at most 1024×1024 (an SVG is rasterised, so no script, event handler or outside reference survives; metadata is dropped; a photo is turned upright). Images over ${MAX_LOGO_SOURCE_PIXELS / 1e6} megapixels are refused before decoding.`;

function getLinkLogoOperation(): Operation {
  return operation({
    operationId: "getLinkLogo",
    summary: "Download a link's logo",
    description: "The link's own centre logo as stored (PNG). Open to every role that can read the link, with or without an active subscription.",
    tag: "QR codes",
    parameters: [LINK_ID_PARAMETER, IF_NONE_MATCH_PARAMETER],
    responses: {
      200: binaryResponse("The stored logo.", ["image/png"], false),
      304: NOT_MODIFIED,
      404: failure("No link with this id exists in this workspace, or it has no logo of its own."),
    },
  });
}

function setLinkLogoOperation(): Operation {
  return operation({
    operationId: "setLinkLogo",
    summary: "Upload a link's logo",
    description: `Sets or replaces the link's own centre logo, which its QR code shows with logo=true. An edit of the link: it needs an active subscription and the right to edit this link. ${LOGO_RULES}`,
    tag: "QR codes",
    write: true,
    parameters: [LINK_ID_PARAMETER],
    upload: true,
    responses: {
      200: jsonResponse("The stored logo.", logoResponseSchema),
      ...LOGO_UPLOAD_FAILURES,
      403: failure("Members may change only the logos of links they created."),
      404: failure("No link with this id exists in this workspace."),
    },
  });
}

function removeLinkLogoOperation(): Operation {
  return operation({
    operationId: "removeLinkLogo",
    summary: "Remove a link's logo",
    description: "Removes the link's own logo (its code then uses the workspace's default with logo=true). Needs the right to edit this link but no subscription. Removing an absent logo also answers 204.",
    tag: "QR codes",
    write: true,
    parameters: [LINK_ID_PARAMETER],
    responses: {
      204: { description: "The link has no logo of its own." },
      403: failure("Members may change only the logos of links they created."),
      404: failure("No link with this id exists in this workspace."),
    },
  });
}

function getWorkspaceLogoOperation(): Operation {
  return operation({
    operationId: "getWorkspaceLogo",
    summary: "Download the workspace's default logo",
    description: "The logo every link's QR code shows with logo=true when the link has none of its own, as stored (PNG). Open to every role, with or without an active subscription.",
    tag: "QR codes",
    parameters: [IF_NONE_MATCH_PARAMETER],
    responses: {
      200: binaryResponse("The stored logo.", ["image/png"], false),
      304: NOT_MODIFIED,
      404: failure("This workspace has no default logo."),
    },
  });
}

function setWorkspaceLogoOperation(): Operation {
  return operation({
    operationId: "setWorkspaceLogo",
    summary: "Upload the workspace's default logo",
    description: `Sets or replaces the default centre logo of the workspace's links. It changes every link's artwork, so it needs the right to edit any link (owners, admins, the API key) and an active subscription. ${LOGO_RULES}`,
    tag: "QR codes",
    write: true,
    upload: true,
    responses: {
      200: jsonResponse("The stored logo.", logoResponseSchema),
      ...LOGO_UPLOAD_FAILURES,
      403: failure("Your role does not allow changing the workspace's default logo (members)."),
    },
  });
}

function removeWorkspaceLogoOperation(): Operation {
  return operation({
    operationId: "removeWorkspaceLogo",
    summary: "Remove the workspace's default logo",
    description: "Removes the default logo. Needs the right to edit any link but no subscription. Removing an absent logo also answers 204.",
    tag: "QR codes",
    write: true,
    responses: {
      204: { description: "The workspace has no default logo." },
      403: failure("Your role does not allow changing the workspace's default logo (members)."),
    },
  });
}

const LOGO_UPLOAD_FAILURES: Record<string, ResponseObject> = {
  400: failure("The body is empty."),
  402: paymentRequired("The workspace has no active subscription (pay: subscribe). Existing codes and logos keep working and downloading."),
  413: failure(`The body is larger than 1 MiB, or the image has more than ${MAX_LOGO_SOURCE_PIXELS / 1e6} megapixels.`),
  415: failure(`The Content-Type is not one of ${LOGO_UPLOAD_TYPES.join(", ")}, or the bytes are not the type it claims, or they are not a complete, readable image (an SVG declaring external entities is refused).`),
  422: failure("The SVG took too long to render."),
};

const NOT_MODIFIED: ResponseObject = { description: "The If-None-Match ETag is current: nothing to download.", headers: { ETag: ref("headers", "ETag") } };

const IF_NONE_MATCH_PARAMETER: Parameter = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description: "The ETag of a copy you hold; when it is current the answer is 304 without a body",
  schema: { type: "string" },
};

/** A file download: the image itself as the body, with the headers that make a re-download cheap. */
function binaryResponse(description: string, mediaTypes: string[], attachment: boolean): ResponseObject {
  return {
    description,
    headers: {
      ETag: ref("headers", "ETag"),
      "Cache-Control": ref("headers", "DownloadCacheControl"),
      ...(attachment && { "Content-Disposition": ref("headers", "ContentDisposition") }),
    },
    content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: { type: "string", contentMediaType: type } }])),
  };
}

function getLinkOperation(): Operation {
  return operation({
    operationId: "getLink",
    summary: "Get a link",
    description: "Any link of the workspace, archived ones included.",
    tag: "Links",
    parameters: [LINK_ID_PARAMETER],
    responses: {
      200: jsonResponse("The link.", linkSchema),
      404: failure("No link with this id exists in this workspace."),
    },
  });
}

function updateLinkOperation(): Operation {
  return operation({
    operationId: "updateLink",
    summary: "Repoint a link",
    description:
      "Points the code at a new destination. The slug never changes; a repointed link goes back to quarantine (status 1). Needs an active subscription, except for a machine account's key, which repoints the links it bought.",
    tag: "Links",
    write: true,
    parameters: [LINK_ID_PARAMETER],
    body: updateLinkBody,
    responses: {
      200: jsonResponse("The repointed link.", linkSchema),
      400: failure("The body failed validation, is not JSON, or the destination is malformed."),
      402: paymentRequired("The workspace has no active subscription (pay: subscribe). The link keeps resolving to its current destination."),
      403: failure("Members may edit only the links they created."),
      404: failure("No link with this id exists in this workspace."),
      409: failure("The link was blocked for abuse and cannot be repointed."),
      422: failure("The destination was refused (internal or private address, cloud metadata endpoint, userinfo in the URL) or failed a safety check."),
    },
  });
}

function archiveLinkOperation(): Operation {
  return operation({
    operationId: "archiveLink",
    summary: "Archive a link",
    description:
      "Takes the link out of the list. The code keeps resolving. Archiving an archived link is harmless and returns it unchanged. Needs no subscription: it changes no destination.",
    tag: "Links",
    write: true,
    parameters: [LINK_ID_PARAMETER],
    responses: {
      200: jsonResponse("The link, with archived_at set.", linkSchema),
      403: failure("Members may archive only the links they created."),
      404: failure("No link with this id exists in this workspace."),
    },
  });
}

function claimKeyOperation(): Operation {
  return operation({
    operationId: "claimApiKey",
    summary: "Mint the workspace's API key",
    description: "Needs a session token of an owner or admin; takes no body. The raw key is returned once and stored only as a hash, so it cannot be recovered. A workspace has at most one live key.",
    tag: "API keys",
    credentials: "session",
    write: true,
    responses: {
      200: jsonResponse("The raw key, shown once.", claimResponseSchema),
      403: failure("An API key cannot mint keys, and members cannot claim one."),
      409: failure("The workspace already has a live key; an owner must revoke it first."),
    },
  });
}

function revokeKeyOperation(): Operation {
  return operation({
    operationId: "revokeApiKey",
    summary: "Revoke the workspace's API key",
    description: "Needs an owner's session token. The key stops authenticating at once.",
    tag: "API keys",
    credentials: "session",
    write: true,
    responses: {
      200: jsonResponse("When the key was revoked.", revokeResponseSchema),
      403: failure("Only an owner's session token can revoke the key."),
      404: failure("The workspace has no live key."),
    },
  });
}

function rotateKeyOperation(): Operation {
  return operation({
    operationId: "rotateApiKey",
    summary: "Rotate the API key",
    description:
      "Send it with the API key to replace (any workspace's, a machine account's too); takes no body. The new raw key is returned once and the old key stops authenticating at once. Of concurrent rotations with one key, exactly one succeeds.",
    tag: "API keys",
    credentials: "api_key",
    write: true,
    responses: {
      200: jsonResponse("The new raw key, shown once.", claimResponseSchema),
      403: failure("A session token was sent: rotate with the key itself, or revoke and claim with an owner's session."),
    },
  });
}

function recoveryNonceOperation(): Operation {
  return operation({
    operationId: "getRecoveryNonce",
    summary: "Get a nonce to recover a machine account's key",
    description:
      "No credentials needed. A single-use nonce, valid for ten minutes, with the domain, URI, chain ID and version the Sign-In-with-Ethereum (EIP-4361) message must carry; see recoverMachineAccountKey and /docs/payments.",
    tag: "API keys",
    credentials: "none",
    responses: {
      200: jsonResponse("The nonce and the message's fields.", recoveryNonceSchema),
      429: clientWriteLimit(),
    },
  });
}

function recoverMachineKeyOperation(): Operation {
  return operation({
    operationId: "recoverMachineAccountKey",
    summary: "Recover a machine account's key with its wallet",
    description:
      "No credentials needed: the wallet that paid for the account's links proves itself by signing an EIP-4361 message (personal_sign) whose domain and URI are this service, whose chain ID is the payment network's, and whose nonce came from getRecoveryNonce. The account's key is replaced: the new raw key is returned once and the old key stops authenticating at once.",
    tag: "API keys",
    credentials: "none",
    body: recoverKeyBody,
    responses: {
      200: jsonResponse("The new raw key, shown once.", claimResponseSchema),
      400: failure("The body failed validation, or the message is not EIP-4361, or it names another domain, URI origin or chain, or is not valid yet."),
      401: failure("The signature was not made by the message's address, or the nonce is unknown or already used."),
      404: failure("No machine account belongs to the message's address on the payment network."),
      409: failure("Another key was issued for the account at the same moment."),
      410: failure("The message or its nonce has expired."),
      429: clientWriteLimit(),
    },
  });
}

function startCheckoutOperation(): Operation {
  return operation({
    operationId: "startCheckout",
    summary: "Start a subscription",
    description:
      "Answers the address of a checkout page for the chosen plan, billed in Australian dollars: starter (19 a month, monthly only, 100 new links per billing cycle) or unlimited (49 a month or 490 a year, no cap); both include custom domains, scan analytics and teammates. The body may be empty: unlimited, monthly. The subscription becomes active when the payment completes. Needs an owner, an admin or the workspace's API key.",
    tag: "Billing",
    write: true,
    body: checkoutBody,
    responses: {
      200: jsonResponse("Where to send the customer to pay.", checkoutResponseSchema),
      400: failure("The body failed validation or is not JSON; starter with yearly billing is refused."),
      403: failure("Members cannot manage the subscription, and a machine account has none (it pays per link)."),
      409: failure("The workspace already has an active subscription; change its plan in the billing portal."),
      502: failure("The payment provider did not complete the request; nothing was charged."),
      503: failure("Billing is not set up on this deployment."),
    },
  });
}

function openBillingPortalOperation(): Operation {
  return operation({
    operationId: "openBillingPortal",
    summary: "Open the billing portal",
    description:
      "Answers the address of the billing portal: payment method, invoices, change of plan (the way to upgrade from starter) and cancellation. Open whatever the state of the subscription, so a lapsed customer can always pay again.",
    tag: "Billing",
    write: true,
    responses: {
      200: jsonResponse("Where to send the customer.", portalResponseSchema),
      403: failure("Members cannot manage the subscription, and a machine account has none (it pays per link)."),
      502: failure("The payment provider did not complete the request."),
      503: failure("Billing is not set up on this deployment."),
    },
  });
}

function stripeWebhookOperation(): Operation {
  return operation({
    operationId: "receiveStripeWebhook",
    summary: "Receive Stripe's events",
    description:
      "For Stripe, not for clients: a Stripe event (JSON) signed in the Stripe-Signature header. checkout.session.completed, customer.subscription.created, updated and deleted, invoice.paid and invoice.payment_failed change the subscription; each event id is applied once, and an event older than the state on record changes nothing. Other events are acknowledged and ignored.",
    tag: "Billing",
    credentials: "stripe_signature",
    parameters: [STRIPE_SIGNATURE_PARAMETER],
    responses: {
      200: jsonResponse("The event was received; outcome says whether it changed the subscription.", webhookReceiptSchema),
      413: failure(`The event is larger than ${MAX_WEBHOOK_BYTES / 1024} KiB.`),
    },
  });
}

function describeAccountOperation(): Operation {
  return operation({
    operationId: "describeAccount",
    summary: "Tier and quota",
    description:
      "The workspace's plan, billing interval and subscription status, the current billing cycle, the links created in it against the plan's cap, and what the caller may do now. Creating and editing need an active subscription (trialing, active, or past_due within its grace period); listing, archiving, the billing portal and the resolution of every link never do.",
    tag: "Billing",
    responses: { 200: jsonResponse("The account report.", accountSchema) },
  });
}

function describeWorkspaceOperation(): Operation {
  return operation({
    operationId: "describeWorkspace",
    summary: "Describe the current workspace",
    description: "The workspace this call acts on, the credential used and the live key's hint; for a session token, also every workspace the user belongs to.",
    tag: "Workspaces",
    responses: { 200: jsonResponse("The workspace report.", workspaceReportSchema) },
  });
}

function listMembersOperation(): Operation {
  return operation({
    operationId: "listMembers",
    summary: "List workspace members",
    description: "Members of the workspace, oldest first.",
    tag: "Workspaces",
    responses: {
      200: jsonResponse("The members.", memberListSchema),
      403: failure("Your role in this workspace does not allow listing members."),
    },
  });
}

function reportAbuseOperation(): Operation {
  return operation({
    operationId: "reportAbuse",
    summary: "Report an abusive link",
    description:
      "Anyone may report a short URL; no credentials needed. A reporter is a network (IPv4 /24, IPv6 /64), kept only as a keyed hash; one pending report per reporter and link counts (a repeat is accepted and ignored). A report never changes the link's status by itself: it queues the link for an operator's review and triggers a live safety check of the destination (at most one per link every 10 minutes), which blocks the link only when the destination is found malicious. The answer is the same whatever the report led to.",
    tag: "Abuse",
    credentials: "none",
    body: abuseReportBody,
    responses: {
      202: jsonResponse("The report was received.", abuseReportReceiptSchema),
      400: failure("The body failed validation or is not JSON."),
      404: failure("No short link exists at this URL."),
      429: failure(`Too many reports from your network this minute (limit ${REPORTS_PER_MINUTE} a minute).`, rateLimitHeaderRefs()),
    },
  });
}

function listAbuseQueueOperation(): Operation {
  return operation({
    operationId: "listAbuseQueue",
    summary: "The abuse review queue (operator)",
    description: `Links with pending abuse reports, most distinct reporters first, then the most recently reported: each with the link, the number of reporters, the first and last report times and its most recent reports. At most ${MAX_QUEUE_PAGE} per page; follow next_cursor for more. Setting a link's status retires its pending reports, which takes it off the queue until someone reports it again.`,
    tag: "Abuse",
    credentials: "operator",
    parameters: queryParameters(abuseQueueQuery, { limit: `page size; defaults to ${MAX_QUEUE_PAGE}` }),
    responses: {
      200: jsonResponse("A page of the queue.", abuseQueueSchema),
      400: failure("The query string failed validation, or the cursor was not issued by this service."),
    },
  });
}

function setLinkStatusOperation(): Operation {
  return operation({
    operationId: "setLinkStatus",
    summary: "Set a link's status (operator)",
    description: "Moves any link to active, quarantine or abuse, for example after reviewing abuse reports; the link's pending reports are retired with the decision. Abuse needs a reason, which the warning page shows; leaving abuse clears it; quarantine starts afresh. Every instance drops its cached copy at once.",
    tag: "Abuse",
    credentials: "operator",
    parameters: [LINK_ID_PARAMETER],
    body: linkStatusChangeBody,
    responses: {
      200: jsonResponse("The link's new status.", linkStatusSchema),
      400: failure("The body failed validation or is not JSON, or status is 2 without a reason."),
      404: failure("No link with this id exists."),
    },
  });
}

function recheckOperation(): Operation {
  return operation({
    operationId: "recheckLinks",
    summary: "Run the background re-check (cron)",
    description: "Runs a live safety check on the quarantined links that are due one (a clean check counts toward release) and on a sample of active links (a destination that turned malicious is blocked), and says how many it checked, released and blocked.",
    tag: "Operations",
    credentials: "cron",
    responses: { 200: jsonResponse("What this run did.", recheckTotalsSchema) },
  });
}

function openApiOperation(): Operation {
  return operation({
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI document",
    description: "The description of the API as OpenAPI 3.1; no credentials needed.",
    tag: "Meta",
    credentials: "none",
    responses: {
      200: { description: "The OpenAPI document.", content: { [JSON_MEDIA_TYPE]: { schema: { type: "object" } } } },
    },
  });
}

type OperationSpec = {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  credentials?: Credentials;
  /** Counts against the workspace's write budget, so it can answer 429. */
  write?: boolean;
  parameters?: Parameter[];
  body?: z.ZodType;
  /** The body is an image upload (raw bytes, 1 MiB at most), not JSON. */
  upload?: boolean;
  /** Also open to agents without an account, who pay per call. */
  payment?: PaymentExtension;
  responses: Record<string, ResponseObject>;
};

/** Adds what every operation of its kind shares: auth and 401 (503), 413 on bodies, 429 on writes, 500. */
function operation(spec: OperationSpec): Operation {
  const credentials = spec.credentials ?? "api_key_or_session";
  const workspaceBearer = credentials === "api_key_or_session" || credentials === "api_key" || credentials === "session";
  const responses: Record<string, ResponseObject> = { ...spec.responses, ...AUTH_FAILURES[credentials], 500: INTERNAL_FAILURE };
  if (spec.body) responses[413] = failure(`The request body is larger than ${MAX_JSON_BODY_BYTES / 1024} KiB.`);
  if (spec.write) responses[429] = tooManyWrites();
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security: spec.payment ? [...SECURITY[credentials], { paymentAuth: [] }, {}] : SECURITY[credentials],
    "x-credentials": credentials,
    ...(spec.payment && { "x-payment": spec.payment }),
    parameters: [...(workspaceBearer ? [ref("parameters", "WorkspaceId")] : []), ...(spec.parameters ?? [])],
    ...(spec.body && { requestBody: { required: true, content: jsonContent(spec.body) } }),
    ...(spec.upload && { requestBody: { required: true, content: imageUploadContent() } }),
    responses,
  };
}

function imageUploadContent(): Content {
  return Object.fromEntries(LOGO_UPLOAD_TYPES.map((type) => [type, { schema: { type: "string", contentMediaType: type } }]));
}

function jsonResponse(description: string, schema: z.ZodType): ResponseObject {
  return { description, content: jsonContent(schema) };
}

function failure(description: string, headers?: Record<string, Reference>): ResponseObject {
  return { description, ...(headers && { headers }), content: jsonContent(errorSchema) };
}

function tooManyWrites(): ResponseObject {
  return failure(
    `Too many writes this minute for this workspace (limit ${config().WRITE_RATE_LIMIT_PER_MINUTE} a minute, shared by its members and its key).`,
    rateLimitHeaderRefs(),
  );
}

/** Callers without an account share one write budget per client address. */
function clientWriteLimit(): ResponseObject {
  return failure(`Too many writes this minute from your address (limit ${config().WRITE_RATE_LIMIT_PER_MINUTE} a minute).`, rateLimitHeaderRefs());
}

function rateLimitHeaderRefs(): Record<string, Reference> {
  return {
    "Retry-After": ref("headers", "RetryAfter"),
    "RateLimit-Policy": ref("headers", "RateLimitPolicy"),
    RateLimit: ref("headers", "RateLimit"),
  };
}

/** A 402 whose body names the way forward in pay. */
function paymentRequired(description: string): ResponseObject {
  return { description, content: jsonContent(paymentRequiredSchema) };
}

const UNAUTHORIZED = failure(
  "No valid API key or session token was sent, or X-Workspace-Id names a workspace you are not a member of (decided before anything else about the request).",
  { "WWW-Authenticate": ref("headers", "WWWAuthenticate") },
);

/** A deployment secret: wrong or missing is 401; a deployment that never set it answers 503. */
function deploymentSecretFailures(variable: string): Record<string, ResponseObject> {
  return {
    401: failure(`The Authorization header is not \`Bearer <${variable}>\`.`, { "WWW-Authenticate": ref("headers", "WWWAuthenticate") }),
    503: failure(`${variable} is not set on this deployment, so the operation is switched off.`),
  };
}

const AUTH_FAILURES: Record<Credentials, Record<string, ResponseObject>> = {
  api_key_or_session: { 401: UNAUTHORIZED },
  api_key: { 401: UNAUTHORIZED },
  session: { 401: UNAUTHORIZED },
  none: {},
  operator: deploymentSecretFailures("OPERATOR_TOKEN"),
  cron: deploymentSecretFailures("CRON_SECRET"),
  stripe_signature: {
    400: failure("The Stripe-Signature header is missing, or does not match the payload and STRIPE_WEBHOOK_SECRET, or is too old."),
    503: failure("This deployment does not bill through Stripe."),
  },
};

const INTERNAL_FAILURE = failure("Something went wrong on the service's side; the request was not completed.");

const RESPONSE_HEADERS: Record<string, Header> = {
  PaymentChallenge: {
    description: "The MPP challenge: `Payment id=…, realm=…, method=\"evm\", intent=\"charge\", request=…, expires=…, opaque=…` (request: price, asset, recipient and chain, covered by the id's HMAC; opaque: a hash of the destination and the slug; expires within five minutes).",
    schema: { type: "string" },
  },
  PaymentRequired: { description: "The x402 version 2 challenge: base64 JSON `{x402Version: 2, resource, accepts: [{scheme: \"exact\", network, amount, asset, payTo, maxTimeoutSeconds, extra}]}`.", schema: { type: "string" } },
  PaymentReceipt: { description: "On a paid 201: base64url JSON `{status: \"success\", method: \"evm\", reference, timestamp}`; reference is the settlement transaction, also the body's receipt.", schema: { type: "string" } },
  PaymentResponse: { description: "On a 201 paid with x402: base64 JSON `{success: true, transaction, network, payer}`.", schema: { type: "string" } },
  WWWAuthenticate: { description: 'The Bearer challenge: `Bearer realm="api"`.', schema: { type: "string" } },
  ETag: { description: "A hash of the content; send it back in If-None-Match to get 304 while it is current.", schema: { type: "string" } },
  DownloadCacheControl: { description: "`private, no-cache`: a client may keep a copy but revalidates it (If-None-Match) before use.", schema: { type: "string" } },
  ContentDisposition: { description: "`attachment; filename=\"…\"` with a file name that says what the file is.", schema: { type: "string" } },
  RetryAfter: { description: "Seconds until the write budget refills.", schema: { type: "integer", minimum: 1 } },
  RateLimitPolicy: { description: "The write policy, as in the IETF RateLimit headers draft: quota `q` per window `w` seconds.", schema: { type: "string" } },
  RateLimit: { description: "Remaining writes `r` and seconds until reset `t`.", schema: { type: "string" } },
};

const STRIPE_SIGNATURE_PARAMETER: Parameter = {
  name: "Stripe-Signature",
  in: "header",
  required: true,
  description: "Stripe's signature of the payload (t=…,v1=…), verified with STRIPE_WEBHOOK_SECRET",
  schema: { type: "string" },
};

const LINK_ID_PARAMETER: Parameter = {
  name: "id",
  in: "path",
  required: true,
  description: "the link's id, as returned at creation",
  schema: { type: "string" },
};

function workspaceIdParameter(): Parameter {
  return {
    name: "X-Workspace-Id",
    in: "header",
    required: false,
    description: "Selects the workspace when a session token can reach several. An API key belongs to exactly one workspace and ignores it. Naming a workspace you are not a member of gives 401.",
    schema: { type: "string" },
  };
}

function queryParameters(schema: z.ZodObject, descriptions: Record<string, string>): Parameter[] {
  const converted = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
  const required = new Set(converted.required ?? []);
  return Object.entries(converted.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property as JsonSchema;
    return { name, in: "query", required: required.has(name), description: descriptions[name] ?? description, schema: propertySchema };
  });
}

function jsonContent(schema: z.ZodType): Content {
  return { [JSON_MEDIA_TYPE]: { schema: ref("schemas", schemaId(schema)) } };
}

function ref(section: keyof OpenApiDocument["components"], name: string): Reference {
  return { $ref: `#/components/${section}/${name}` };
}

function schemaId(schema: z.ZodType): string {
  const id = schema.meta()?.id;
  if (typeof id !== "string") throw new Error("A schema used in the OpenAPI document needs .meta({ id }).");
  return id;
}

/**
 * Converts through a registry of just these schemas, not z.globalRegistry: the global one holds
 * whatever other modules of the process happened to load, so the document would vary with them.
 */
function convertSchemas(schemas: z.ZodType[], io: "input" | "output"): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const schema of schemas) registry.add(schema, { id: schemaId(schema) });
  const converted = z.toJSONSchema(registry, { target: "draft-2020-12", io, uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(Object.entries(converted.schemas).map(([id, schema]) => [id, withoutDialectKeywords(schema)]));
}

/** Each component is part of the document, not a standalone schema resource. */
function withoutDialectKeywords(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _resourceId, ...rest } = schema;
  return rest;
}
