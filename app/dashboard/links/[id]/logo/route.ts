import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { sendDownload } from "@/lib/http/download";
import * as logoOperations from "@/lib/logos/operations";
import { linkLogoDownload, removeLinkLogo, uploadLinkLogo } from "@/lib/logos/service";

/** The link logo operations of /api/links/{id}/logo for the signed-in dashboard (cookie session; writes from its own origin only). */
export const GET = apiRoute({ ...logoOperations.getLinkLogo, auth: "dashboard" }, async ({ request, principal, params }) =>
  sendDownload(request, await linkLogoDownload(principal, params.id)),
);

export const PUT = apiRoute({ ...logoOperations.setLinkLogo, auth: "dashboard" }, async ({ request, principal, params, reply }) =>
  reply(200, await uploadLinkLogo(principal, params.id, request)),
);

export const DELETE = apiRoute({ ...logoOperations.removeLinkLogo, auth: "dashboard" }, async ({ principal, params, reply }) => {
  await removeLinkLogo(principal, params.id);
  return reply(204);
});

export const { POST, PATCH, OPTIONS } = otherMethods({ GET, PUT, DELETE });
