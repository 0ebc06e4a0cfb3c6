import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { createLink as createLinkOperation, listLinks as listLinksOperation } from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import { createLink, listLinks } from "@/lib/links/service";
import { buyLink } from "@/lib/payments/purchase";

/** Bearer credentials create on the account; a payment credential, or none at all, buys the link. */
export const POST = apiRoute(createLinkOperation, async ({ request, principal, body }) => {
  if (!principal) return buyLink(request, body);
  const { link, created } = await createLink(principal, body);
  return json(toLinkView(link), created ? 201 : 200);
});

export const GET = apiRoute(listLinksOperation, async ({ principal, query }) => json(await listLinks(principal, query)));

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
