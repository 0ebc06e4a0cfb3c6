import { createLinksInBulk } from "@/lib/api/bulk-links";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { bulkCreateLinks } from "@/lib/links/operations";

export const POST = apiRoute(bulkCreateLinks, async ({ principal, body, reply }) =>
  reply(200, await createLinksInBulk(principal, body)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
