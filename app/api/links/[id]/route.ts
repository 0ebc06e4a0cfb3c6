import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";
import { toLinkView } from "@/lib/links/present";
import { updateLinkBody } from "@/lib/links/schemas";
import { archive, getLink, repoint } from "@/lib/links/service";

type Params = { id: string };

export const GET = apiRoute<never, never, Params>({}, async ({ principal, params }) =>
  json(toLinkView(await getLink(principal, params.id))),
);

export const PATCH = apiRoute<typeof updateLinkBody, never, Params>(
  { write: true, body: updateLinkBody },
  async ({ principal, params, body }) => json(toLinkView(await repoint(principal, params.id, body.destination))),
);

export const DELETE = apiRoute<never, never, Params>({ write: true }, async ({ principal, params }) =>
  json(toLinkView(await archive(principal, params.id))),
);
