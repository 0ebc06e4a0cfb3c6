import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { sendDownload } from "@/lib/http/download";
import { getWorkspaceLogo, removeWorkspaceLogo as removeWorkspaceLogoOperation, setWorkspaceLogo } from "@/lib/logos/operations";
import { removeWorkspaceLogo, uploadWorkspaceLogo, workspaceLogoDownload } from "@/lib/logos/service";

export const GET = apiRoute(getWorkspaceLogo, async ({ request, principal }) =>
  sendDownload(request, await workspaceLogoDownload(principal)),
);

export const PUT = apiRoute(setWorkspaceLogo, async ({ request, principal, reply }) =>
  reply(200, await uploadWorkspaceLogo(principal, request)),
);

export const DELETE = apiRoute(removeWorkspaceLogoOperation, async ({ principal, reply }) => {
  await removeWorkspaceLogo(principal);
  return reply(204);
});

export const { POST, PATCH, OPTIONS } = otherMethods({ GET, PUT, DELETE });
