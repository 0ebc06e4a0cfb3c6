import { sendDownload } from "@/lib/http/download";
import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";
import { removeWorkspaceLogo, uploadWorkspaceLogo, workspaceLogoDownload } from "@/lib/logos/service";

export const GET = apiRoute({}, async ({ request, principal }) => sendDownload(request, await workspaceLogoDownload(principal)));

export const PUT = apiRoute({ write: true }, async ({ request, principal }) => json(await uploadWorkspaceLogo(principal, request)));

export const DELETE = apiRoute({ write: true }, async ({ principal }) => {
  await removeWorkspaceLogo(principal);
  return new Response(null, { status: 204 });
});
