import {
  defineOperation,
  download,
  failure,
  IF_NONE_MATCH_PARAMETER,
  NOT_MODIFIED,
  ok,
  RATE_LIMIT_HEADERS,
} from "@/lib/http/operation";
import { LINK_ID_PARAMETER } from "@/lib/links/operations";
import { MIN_CONTRAST_RATIO } from "./contrast";
import { qrDesignBody, qrDesignSchema, qrQuery } from "./schemas";

export const getQrCode = defineOperation({
  method: "get",
  path: "/api/links/{id}/qr",
  auth: "workspace",
  scope: "links:read",
  operationId: "getQrCode",
  summary: "Download a link's QR code",
  description:
    `The code as SVG (default) or PNG, drawn on the server. Each option left out comes from the ` +
    `link's saved design (PUT /api/links/{id}/qr-design), else the workspace's default design (PUT ` +
    `/api/workspaces/qr-design), else the defaults below; an option in the query string overrides ` +
    `the saved one. It encodes the link's short_url with the scan marker \`?qr\` (visits through it ` +
    `count as QR scans; the marker is not passed on to the destination); a custom-domain link's code ` +
    `carries its own host. With logo=true the link's own logo, else the workspace's default, sits in ` +
    `the centre: the level is then at least Q (H by default), the modules under the logo are ` +
    `cleared, and the logo is never larger than the error correction can make up for. Colours that ` +
    `would not scan are refused: a foreground lighter than the background, or a WCAG contrast ratio ` +
    `under ${MIN_CONTRAST_RATIO}:1. Open to every role that can read the link, with or without an ` +
    `active subscription. Revalidate with If-None-Match: an unchanged drawing answers 304.`,
  tag: "QR codes",
  query: qrQuery,
  parameters: [LINK_ID_PARAMETER, IF_NONE_MATCH_PARAMETER],
  responses: {
    200: download(
      "The artwork, as an attachment named qr-<slug>.svg or .png (qr-<host>-<slug> on a custom domain).",
      ["image/svg+xml", "image/png"],
      true,
    ),
    304: NOT_MODIFIED,
    400: failure(
      "The query string failed validation, or the colours would not scan (foreground lighter than the background, or contrast under 3:1).",
    ),
    404: failure(
      "No link with this id exists in this workspace; or the query string says logo=true and neither " +
        "the link nor its workspace has a logo (a saved design's logo is drawn only when one exists).",
    ),
    429: failure(
      "Reads are weighed by the drawing's pixels: a PNG counts its pixels in 1024 × 1024 squares (at least one; " +
        "4096 pixels: 16), an SVG one, 120 a minute with this credential or 300 from your network; artwork drawn " +
        "afresh (not already cached) counts its PNG's pixels in 512 × 512 squares (4096 pixels: 64), an SVG one, 128 " +
        "a minute with it or 256 from your network. Retry-After says when to try again.",
      RATE_LIMIT_HEADERS,
    ),
  },
});

const DESIGN_RULES =
  `The same options and rules as GET /api/links/{id}/qr's query string (size, margin, fg, bg, ` +
  `level, logo; without format), as JSON: logo is a boolean, level may be null (automatic). An ` +
  `option left out takes the service's default; colours that would not scan are refused as the ` +
  `download refuses them. With logo true the code carries the link's logo, else the workspace's, ` +
  `whenever one exists.`;

const DESIGN_FAILURES = {
  400: failure(
    `The body failed validation or is not JSON, or the colours would not scan (foreground lighter ` +
      `than the background, or contrast under ${MIN_CONTRAST_RATIO}:1).`,
  ),
} as const;

export const getLinkQrDesign = defineOperation({
  method: "get",
  path: "/api/links/{id}/qr-design",
  auth: "workspace",
  scope: "links:read",
  operationId: "getLinkQrDesign",
  summary: "Get a link's QR design",
  description:
    "The design GET /api/links/{id}/qr draws when its query string names no option: the link's own, " +
    "else the workspace's default, else the service's default (source says which). Open to every " +
    "role that can read the link.",
  tag: "QR codes",
  parameters: [LINK_ID_PARAMETER],
  responses: {
    200: ok("The design in effect.", qrDesignSchema),
    404: failure("No link with this id exists in this workspace."),
  },
});

export const setLinkQrDesign = defineOperation({
  method: "put",
  path: "/api/links/{id}/qr-design",
  auth: "workspace",
  scope: "links:write",
  operationId: "setLinkQrDesign",
  summary: "Save a link's QR design",
  description:
    `Saves the link's own design, replacing its previous one; its code is drawn with it from now on ` +
    `(the code's content never changes, only its look). Needs the right to edit this link, but no ` +
    `subscription. ${DESIGN_RULES}`,
  tag: "QR codes",
  write: true,
  parameters: [LINK_ID_PARAMETER],
  body: qrDesignBody,
  responses: {
    200: ok("The saved design (source link).", qrDesignSchema),
    ...DESIGN_FAILURES,
    403: failure("Members may restyle only the links they created."),
    404: failure("No link with this id exists in this workspace."),
  },
});

export const removeLinkQrDesign = defineOperation({
  method: "delete",
  path: "/api/links/{id}/qr-design",
  auth: "workspace",
  scope: "links:write",
  operationId: "removeLinkQrDesign",
  summary: "Forget a link's QR design",
  description:
    "Removes the link's own design: its code follows the workspace's default design again. " +
    "Forgetting a design the link does not have changes nothing. Needs the right to edit this link, " +
    "but no subscription.",
  tag: "QR codes",
  write: true,
  parameters: [LINK_ID_PARAMETER],
  responses: {
    200: ok("The design now in effect (source workspace or default).", qrDesignSchema),
    403: failure("Members may restyle only the links they created."),
    404: failure("No link with this id exists in this workspace."),
  },
});

export const getWorkspaceQrDesign = defineOperation({
  method: "get",
  path: "/api/workspaces/qr-design",
  auth: "workspace",
  scope: "links:read",
  operationId: "getWorkspaceQrDesign",
  summary: "Get the workspace's default QR design",
  description:
    "The design of every link of the workspace that has none of its own (source workspace), or the " +
    "service's default when the workspace saved none (source default).",
  tag: "QR codes",
  responses: { 200: ok("The workspace's default design.", qrDesignSchema) },
});

export const setWorkspaceQrDesign = defineOperation({
  method: "put",
  path: "/api/workspaces/qr-design",
  auth: "workspace",
  scope: "links:write",
  operationId: "setWorkspaceQrDesign",
  summary: "Save the workspace's default QR design",
  description:
    `Saves the design every link without its own is drawn with. It restyles every such link, so it ` +
    `takes the right to edit any link (owner, admin, the API key), but no subscription. ` +
    `${DESIGN_RULES}`,
  tag: "QR codes",
  write: true,
  body: qrDesignBody,
  responses: {
    200: ok("The saved design (source workspace).", qrDesignSchema),
    ...DESIGN_FAILURES,
    403: failure("Your role does not allow changing the workspace's default QR design."),
  },
});
