import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { setPreviewImage } from "@/lib/logos/operations";
import { uploadPreviewImage } from "@/lib/logos/service";

/** PUT /api/links/{id}/preview/image for the signed-in dashboard (cookie session; writes from its own origin only). */
export const PUT = apiRoute({ ...setPreviewImage, auth: "dashboard" }, async ({ request, principal, params, reply }) =>
  reply(200, await uploadPreviewImage(principal, params.id, request)),
);

export const { GET, POST, PATCH, DELETE, OPTIONS } = otherMethods({ PUT });
