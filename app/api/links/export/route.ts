import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { exportLinks as exportLinksOperation } from "@/lib/exports/operations";
import { exportDownload } from "@/lib/exports/service";

export const GET = apiRoute(exportLinksOperation, async ({ principal, query }) => exportDownload(principal, query.format));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
