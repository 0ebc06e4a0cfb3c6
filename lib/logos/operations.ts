import {
  defineOperation,
  download,
  failure,
  IF_NONE_MATCH_PARAMETER,
  NOT_MODIFIED,
  ok,
  paymentRequired,
  type ResponseSpec,
} from "@/lib/http/operation";
import { LINK_ID_PARAMETER } from "@/lib/links/operations";
import { linkSchema } from "@/lib/links/schemas";
import { LOGO_UPLOAD_TYPES, logoResponseSchema, MAX_LOGO_SOURCE_PIXELS, MAX_PREVIEW_SIDE } from "./schemas";

const LOGO_RULES =
  `Send the image itself as the body with its Content-Type (${LOGO_UPLOAD_TYPES.join(", ")}), at ` +
  `most 1 MiB. It is decoded and re-encoded as a PNG of at most 1024×1024 (an SVG is rasterised, ` +
  `so no script, event handler or outside reference survives; metadata is dropped; a photo is ` +
  `turned upright). Images over ${MAX_LOGO_SOURCE_PIXELS / 1e6} megapixels are refused before ` +
  `decoding.`;

const LOGO_UPLOAD_FAILURES: Record<number, ResponseSpec> = {
  400: failure("The body is empty."),
  402: paymentRequired(
    "The workspace has no active subscription (pay: subscribe). Existing codes and logos keep working and downloading.",
  ),
  413: failure(`The body is larger than 1 MiB, or the image has more than ${MAX_LOGO_SOURCE_PIXELS / 1e6} megapixels.`),
  415: failure(
    `The Content-Type is not one of ${LOGO_UPLOAD_TYPES.join(", ")}, or the bytes are not the type ` +
      `it claims, or they are not a complete, readable image (an SVG declaring external entities is ` +
      `refused).`,
  ),
  422: failure("The SVG took too long to render."),
};

export const getLinkLogo = defineOperation({
  method: "get",
  path: "/api/links/{id}/logo",
  auth: "workspace",
  scope: "links:read",
  operationId: "getLinkLogo",
  summary: "Download a link's logo",
  description:
    "The link's own centre logo as stored (PNG). Open to every role that can read the link, with or without an active subscription.",
  tag: "QR codes",
  parameters: [LINK_ID_PARAMETER, IF_NONE_MATCH_PARAMETER],
  responses: {
    200: download("The stored logo.", ["image/png"], false),
    304: NOT_MODIFIED,
    404: failure("No link with this id exists in this workspace, or it has no logo of its own."),
  },
});

export const setLinkLogo = defineOperation({
  method: "put",
  path: "/api/links/{id}/logo",
  auth: "workspace",
  scope: "links:write",
  operationId: "setLinkLogo",
  summary: "Upload a link's logo",
  description:
    `Sets or replaces the link's own centre logo, which its QR code shows with logo=true. An edit of ` +
    `the link: it needs an active subscription and the right to edit this link. ${LOGO_RULES}`,
  tag: "QR codes",
  write: true,
  parameters: [LINK_ID_PARAMETER],
  uploads: LOGO_UPLOAD_TYPES,
  responses: {
    200: ok("The stored logo.", logoResponseSchema),
    ...LOGO_UPLOAD_FAILURES,
    403: failure("Members may change only the logos of links they created."),
    404: failure("No link with this id exists in this workspace."),
  },
});

export const removeLinkLogo = defineOperation({
  method: "delete",
  path: "/api/links/{id}/logo",
  auth: "workspace",
  scope: "links:write",
  operationId: "removeLinkLogo",
  summary: "Remove a link's logo",
  description:
    "Removes the link's own logo (its code then uses the workspace's default with logo=true). Needs " +
    "the right to edit this link but no subscription. Removing an absent logo also answers 204.",
  tag: "QR codes",
  write: true,
  parameters: [LINK_ID_PARAMETER],
  responses: {
    204: { description: "The link has no logo of its own." },
    403: failure("Members may change only the logos of links they created."),
    404: failure("No link with this id exists in this workspace."),
  },
});

export const getWorkspaceLogo = defineOperation({
  method: "get",
  path: "/api/workspaces/logo",
  auth: "workspace",
  scope: "links:read",
  operationId: "getWorkspaceLogo",
  summary: "Download the workspace's default logo",
  description:
    "The logo every link's QR code shows with logo=true when the link has none of its own, as stored " +
    "(PNG). Open to every role, with or without an active subscription.",
  tag: "QR codes",
  parameters: [IF_NONE_MATCH_PARAMETER],
  responses: {
    200: download("The stored logo.", ["image/png"], false),
    304: NOT_MODIFIED,
    404: failure("This workspace has no default logo."),
  },
});

export const setWorkspaceLogo = defineOperation({
  method: "put",
  path: "/api/workspaces/logo",
  auth: "workspace",
  scope: "links:write",
  operationId: "setWorkspaceLogo",
  summary: "Upload the workspace's default logo",
  description:
    `Sets or replaces the default centre logo of the workspace's links. It changes every link's ` +
    `artwork, so it needs the right to edit any link (owners, admins, the API key) and an active ` +
    `subscription. ${LOGO_RULES}`,
  tag: "QR codes",
  write: true,
  uploads: LOGO_UPLOAD_TYPES,
  responses: {
    200: ok("The stored logo.", logoResponseSchema),
    ...LOGO_UPLOAD_FAILURES,
    403: failure("Your role does not allow changing the workspace's default logo (members)."),
  },
});

export const removeWorkspaceLogo = defineOperation({
  method: "delete",
  path: "/api/workspaces/logo",
  auth: "workspace",
  scope: "links:write",
  operationId: "removeWorkspaceLogo",
  summary: "Remove the workspace's default logo",
  description:
    "Removes the default logo. Needs the right to edit any link but no subscription. Removing an absent logo also answers 204.",
  tag: "QR codes",
  write: true,
  responses: {
    204: { description: "The workspace has no default logo." },
    403: failure("Your role does not allow changing the workspace's default logo (members)."),
  },
});

export const setPreviewImage = defineOperation({
  method: "put",
  path: "/api/links/{id}/preview/image",
  auth: "workspace",
  scope: "links:write",
  operationId: "setPreviewImage",
  summary: "Upload a link's preview image",
  description:
    `Sets or replaces the image of the link's social preview (og:image, twitter:image), which ` +
    `link-preview crawlers fetch from the service's own origin. It passes every defence a logo does ` +
    `(the same types and size, the pixel bound, the sandboxed render) and is re-encoded as a JPEG ` +
    `of at most ${MAX_PREVIEW_SIDE}×${MAX_PREVIEW_SIDE}, so nothing of the file but its pixels is kept. ` +
    `An edit of the link: it needs an active subscription and the right to edit this link. Remove ` +
    `it with PATCH /api/links/{id} and preview.image_url null.`,
  tag: "Links",
  write: true,
  parameters: [LINK_ID_PARAMETER],
  uploads: LOGO_UPLOAD_TYPES,
  responses: {
    200: ok("The link, its preview naming the image.", linkSchema),
    ...LOGO_UPLOAD_FAILURES,
    403: failure("Members may change only the links they created."),
    404: failure("No link with this id exists in this workspace."),
  },
});

export const fillPreview = defineOperation({
  method: "post",
  path: "/api/links/{id}/preview/fill",
  auth: "workspace",
  scope: "links:write",
  operationId: "fillPreview",
  summary: "Fill a link's preview from its destination",
  description:
    "Fetches the link's destination page once, now, and fills the preview from its own tags: og:title " +
    "(else twitter:title, else <title>), og:description (else description) and og:image, which is " +
    "fetched too and passes every defence an upload does. What the page lacks is left as it was. The " +
    "fetch follows the outbound rules of webhooks: public addresses only, each address checked as it is " +
    "connected to, at most 3 redirects each checked again, 512 KiB of page and 8 seconds a request. " +
    "Never done on a visit. Needs an active subscription and the right to edit this link.",
  tag: "Links",
  write: true,
  parameters: [LINK_ID_PARAMETER],
  responses: {
    200: ok("The link, its preview filled.", linkSchema),
    402: paymentRequired("The workspace has no active subscription (pay: subscribe)."),
    403: failure("Members may change only the links they created."),
    404: failure("No link with this id exists in this workspace."),
    422: failure(
      "The destination could not be read: an internal address, a refusal, a timeout, an answer that is not " +
        "a 2xx web page, or a page with no title, description or image. Nothing was changed.",
    ),
  },
});
