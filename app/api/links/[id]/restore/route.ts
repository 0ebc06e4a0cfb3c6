import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { restoreLink } from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import { restore } from "@/lib/links/service";

export const POST = apiRoute(restoreLink, async ({ principal, params, reply }) =>
  reply(200, toLinkView(await restore(principal, params.id))),
);

export const { GET, PATCH, PUT, DELETE, OPTIONS } = otherMethods({ POST });
