import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { sendDownload } from "@/lib/http/download";
import { json } from "@/lib/http/respond";
import { getWorkspaceLogo, removeWorkspaceLogo as removeWorkspaceLogoOperation, setWorkspaceLogo } from "@/lib/logos/operations";
import { removeWorkspaceLogo, uploadWorkspaceLogo, workspaceLogoDownload } from "@/lib/logos/service";

export const GET = apiRoute(getWorkspaceLogo, async ({ request, principal }) =>
  sendDownload(request, await workspaceLogoDownload(principal)),
);

export const PUT = apiRoute(setWorkspaceLogo, async ({ request, principal }) =>
  json(await uploadWorkspaceLogo(principal, request)),
);

export const DELETE = apiRoute(removeWorkspaceLogoOperation, async ({ principal }) => {
  await removeWorkspaceLogo(principal);
  return new Response(null, { status: 204 });
});

export const { POST, PATCH, OPTIONS } = otherMethods({ GET, PUT, DELETE });
