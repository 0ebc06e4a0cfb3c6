import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getLinkQrDesign, removeLinkQrDesign, setLinkQrDesign } from "@/lib/qr/operations";
import { forgetLinkDesign, linkDesign, saveLinkDesign } from "@/lib/qr/service";

export const GET = apiRoute(getLinkQrDesign, async ({ principal, params, reply }) =>
  reply(200, await linkDesign(principal, params.id)),
);

export const PUT = apiRoute(setLinkQrDesign, async ({ principal, params, body, reply }) =>
  reply(200, await saveLinkDesign(principal, params.id, body)),
);

export const DELETE = apiRoute(removeLinkQrDesign, async ({ principal, params, reply }) =>
  reply(200, await forgetLinkDesign(principal, params.id)),
);

export const { POST, PATCH, OPTIONS } = otherMethods({ GET, PUT, DELETE });
