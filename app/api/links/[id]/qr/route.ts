import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { hashedClientNetwork } from "@/lib/http/client-address";
import { sendDownload } from "@/lib/http/download";
import { getQrCode } from "@/lib/qr/operations";
import { linkArtwork } from "@/lib/qr/service";

export const GET = apiRoute(getQrCode, async ({ request, principal, params, query }) =>
  sendDownload(request, await linkArtwork(principal, params.id, query, hashedClientNetwork(request))),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
