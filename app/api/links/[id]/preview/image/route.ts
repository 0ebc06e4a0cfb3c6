import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { sendDownload } from "@/lib/http/download";
import { getPreviewImage } from "@/lib/links/operations";
import { previewImageDownload } from "@/lib/links/service";
import { setPreviewImage } from "@/lib/logos/operations";
import { uploadPreviewImage } from "@/lib/logos/service";

export const GET = apiRoute(getPreviewImage, async ({ request, params, query }) =>
  sendDownload(request, await previewImageDownload(params.id, query.v ?? null)),
);

export const PUT = apiRoute(setPreviewImage, async ({ request, principal, params, reply }) =>
  reply(200, await uploadPreviewImage(principal, params.id, request)),
);

export const { POST, PATCH, DELETE, OPTIONS } = otherMethods({ GET, PUT });
