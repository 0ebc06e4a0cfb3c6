import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { hashedClientNetwork } from "@/lib/http/client-address";
import { sendDownload } from "@/lib/http/download";
import { getQrCode } from "@/lib/qr/operations";
import { linkArtwork } from "@/lib/qr/service";

/** GET /api/links/{id}/qr for the signed-in dashboard: the same options, checks and renderer, so the download is the server's drawing. */
export const GET = apiRoute({ ...getQrCode, auth: "dashboard" }, async ({ request, principal, params, query }) =>
  sendDownload(request, await linkArtwork(principal, params.id, query, hashedClientNetwork(request))),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
