import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { fillPreview } from "@/lib/logos/operations";
import { fillPreviewFromDestination } from "@/lib/logos/preview-fill";

export const POST = apiRoute(fillPreview, async ({ principal, params, reply }) =>
  reply(200, await fillPreviewFromDestination(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
