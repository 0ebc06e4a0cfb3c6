import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as linkOperations from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import { archive, editLink, getLink } from "@/lib/links/service";

export const GET = apiRoute(linkOperations.getLink, async ({ principal, params, reply }) =>
  reply(200, toLinkView(await getLink(principal, params.id))),
);

export const PATCH = apiRoute(linkOperations.updateLink, async ({ principal, params, body, reply }) =>
  reply(200, toLinkView(await editLink(principal, params.id, body))),
);

export const DELETE = apiRoute(linkOperations.archiveLink, async ({ principal, params, reply }) =>
  reply(200, toLinkView(await archive(principal, params.id))),
);

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE });
