import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";
import { toLinkView } from "@/lib/links/present";
import { createLinkBody, listLinksQuery } from "@/lib/links/schemas";
import { createLink, listLinks } from "@/lib/links/service";
import { paysWithoutAccount } from "@/lib/payments/credential";
import { buyLink } from "@/lib/payments/purchase";

const createOnAccount = apiRoute({ write: true, body: createLinkBody }, async ({ principal, body }) => {
  const { link, created } = await createLink(principal, body);
  return json(toLinkView(link), created ? 201 : 200);
});

/** Bearer credentials create on the account; a payment credential, or none at all, buys the link. */
export function POST(request: Request, context: { params: Promise<Record<string, never>> }): Promise<Response> {
  return paysWithoutAccount(request) ? buyLink(request) : createOnAccount(request, context);
}

export const GET = apiRoute({ query: listLinksQuery }, async ({ principal, query }) =>
  json(await listLinks(principal, query.limit, query.cursor)),
);
