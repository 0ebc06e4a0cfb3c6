import { defineOperation, download, failure, IF_NONE_MATCH_PARAMETER, NOT_MODIFIED } from "@/lib/http/operation";
import { LINK_ID_PARAMETER } from "@/lib/links/operations";
import { MIN_CONTRAST_RATIO } from "./contrast";
import { qrQuery } from "./schemas";

export const getQrCode = defineOperation({
  method: "get",
  path: "/api/links/{id}/qr",
  auth: "workspace",
  operationId: "getQrCode",
  summary: "Download a link's QR code",
  description: `The code as SVG (default) or PNG, drawn on the server. It encodes the link's short_url with the scan marker \`?qr\` (visits through it count as QR scans; the marker is not passed on to the destination); a custom-domain link's code carries its own host. With logo=true the link's own logo, else the workspace's default, sits in the centre: the level is then at least Q (H by default), the modules under the logo are cleared, and the logo is never larger than the error correction can make up for. Colours that would not scan are refused: a foreground lighter than the background, or a WCAG contrast ratio under ${MIN_CONTRAST_RATIO}:1. Open to every role that can read the link, with or without an active subscription. Revalidate with If-None-Match: an unchanged drawing answers 304.`,
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
      "No link with this id exists in this workspace; or logo=true and neither the link nor its workspace has a logo.",
    ),
  },
});
