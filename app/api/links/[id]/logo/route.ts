import { sendDownload } from "@/lib/http/download";
import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";
import { linkLogoDownload, removeLinkLogo, uploadLinkLogo } from "@/lib/logos/service";

type Params = { id: string };

export const GET = apiRoute<never, never, Params>({}, async ({ request, principal, params }) =>
  sendDownload(request, await linkLogoDownload(principal, params.id)),
);

export const PUT = apiRoute<never, never, Params>({ write: true }, async ({ request, principal, params }) =>
  json(await uploadLinkLogo(principal, params.id, request)),
);

export const DELETE = apiRoute<never, never, Params>({ write: true }, async ({ principal, params }) => {
  await removeLinkLogo(principal, params.id);
  return new Response(null, { status: 204 });
});
