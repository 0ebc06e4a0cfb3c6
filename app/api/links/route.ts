import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as linkOperations from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import { createLink, listLinks } from "@/lib/links/service";
import { buyLink } from "@/lib/payments/purchase";

/** Bearer credentials create on the account; a payment credential, or none at all, buys the link. */
export const POST = apiRoute(linkOperations.createLink, async ({ request, principal, body, reply }) => {
  if (!principal) return buyLink(request, body);
  const { link, created } = await createLink(principal, body);
  return created ? reply(201, toLinkView(link)) : reply(200, toLinkView(link));
});

export const GET = apiRoute(linkOperations.listLinks, async ({ principal, query, reply }) =>
  reply(200, await listLinks(principal, query)),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
