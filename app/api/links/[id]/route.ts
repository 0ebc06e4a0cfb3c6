import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { archiveLink, getLink as getLinkOperation, updateLink } from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import { archive, editLink, getLink } from "@/lib/links/service";

export const GET = apiRoute(getLinkOperation, async ({ principal, params }) =>
  json(toLinkView(await getLink(principal, params.id))),
);

export const PATCH = apiRoute(updateLink, async ({ principal, params, body }) =>
  json(toLinkView(await editLink(principal, params.id, body))),
);

export const DELETE = apiRoute(archiveLink, async ({ principal, params }) =>
  json(toLinkView(await archive(principal, params.id))),
);

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE });
