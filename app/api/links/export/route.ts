import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as exportOperations from "@/lib/exports/operations";
import { exportDownload } from "@/lib/exports/service";
import { hashedClientNetwork } from "@/lib/http/client-address";

export const GET = apiRoute(exportOperations.exportLinks, async ({ request, principal, query }) =>
  exportDownload(principal, query.format, hashedClientNetwork(request)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
