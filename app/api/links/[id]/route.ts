import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { archiveLink, getLink as getLinkOperation, updateLink } from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import { archive, editLink, getLink } from "@/lib/links/service";

export const GET = apiRoute(getLinkOperation, async ({ principal, params, reply }) =>
  reply(200, toLinkView(await getLink(principal, params.id))),
);

export const PATCH = apiRoute(updateLink, async ({ principal, params, body, reply }) =>
  reply(200, toLinkView(await editLink(principal, params.id, body))),
);

export const DELETE = apiRoute(archiveLink, async ({ principal, params, reply }) =>
  reply(200, toLinkView(await archive(principal, params.id))),
);

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE });
