import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as exportOperations from "@/lib/exports/operations";
import { exportDownload } from "@/lib/exports/service";
import { hashedClientNetwork } from "@/lib/http/client-address";

/** GET /api/links/export for the signed-in dashboard: the same stream of every link, as a download. */
export const GET = apiRoute({ ...exportOperations.exportLinks, auth: "dashboard" }, async ({ request, principal, query }) =>
  exportDownload(principal, query.format, hashedClientNetwork(request)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
