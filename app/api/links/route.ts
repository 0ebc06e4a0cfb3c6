import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";
import { toLinkView } from "@/lib/links/present";
import { createLinkBody, listLinksQuery } from "@/lib/links/schemas";
import { createLink, listLinks } from "@/lib/links/service";

export const POST = apiRoute({ write: true, body: createLinkBody }, async ({ principal, body }) => {
  const { link, created } = await createLink(principal, body);
  return json(toLinkView(link), created ? 201 : 200);
});

export const GET = apiRoute({ query: listLinksQuery }, async ({ principal, query }) =>
  json(await listLinks(principal, query.limit, query.cursor)),
);
