import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { sendDownload } from "@/lib/http/download";
import * as logoOperations from "@/lib/logos/operations";
import { removeWorkspaceLogo, uploadWorkspaceLogo, workspaceLogoDownload } from "@/lib/logos/service";

export const GET = apiRoute(logoOperations.getWorkspaceLogo, async ({ request, principal }) =>
  sendDownload(request, await workspaceLogoDownload(principal)),
);

export const PUT = apiRoute(logoOperations.setWorkspaceLogo, async ({ request, principal, reply }) =>
  reply(200, await uploadWorkspaceLogo(principal, request)),
);

export const DELETE = apiRoute(logoOperations.removeWorkspaceLogo, async ({ principal, reply }) => {
  await removeWorkspaceLogo(principal);
  return reply(204);
});

export const { POST, PATCH, OPTIONS } = otherMethods({ GET, PUT, DELETE });
