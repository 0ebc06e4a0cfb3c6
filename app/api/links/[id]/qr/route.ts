import { sendDownload } from "@/lib/http/download";
import { apiRoute } from "@/lib/http/route";
import { qrQuery } from "@/lib/qr/schemas";
import { linkArtwork } from "@/lib/qr/service";

type Params = { id: string };

export const GET = apiRoute<never, typeof qrQuery, Params>({ query: qrQuery }, async ({ request, principal, params, query }) =>
  sendDownload(request, await linkArtwork(principal, params.id, query)),
);
