import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { linkHistoryPage } from "@/lib/links/history";
import { getLinkHistory } from "@/lib/links/operations";

export const GET = apiRoute(getLinkHistory, async ({ principal, params, query, reply }) =>
  reply(200, await linkHistoryPage(principal, params.id, query)),
);

export const { POST, PATCH, PUT, DELETE, OPTIONS } = otherMethods({ GET });
