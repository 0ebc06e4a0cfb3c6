import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { exportLinks as exportLinksOperation } from "@/lib/exports/operations";
import { exportLinks } from "@/lib/exports/service";

const MEDIA_TYPES = { csv: "text/csv; charset=utf-8", json: "application/json" } as const;

export const GET = apiRoute(exportLinksOperation, async ({ principal, query }) => {
  return new Response(exportLinks(principal, query.format), {
    headers: {
      "Content-Type": MEDIA_TYPES[query.format],
      "Content-Disposition": `attachment; filename="links.${query.format}"`,
      "Cache-Control": "no-store",
    },
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
