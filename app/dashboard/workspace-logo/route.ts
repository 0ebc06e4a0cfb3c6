import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { sendDownload } from "@/lib/http/download";
import { getWorkspaceLogo } from "@/lib/logos/operations";
import { workspaceLogoDownload } from "@/lib/logos/service";

/** GET /api/workspaces/logo for the signed-in dashboard: the default logo a link's code shows when it has none of its own. */
export const GET = apiRoute({ ...getWorkspaceLogo, auth: "dashboard" }, async ({ request, principal }) =>
  sendDownload(request, await workspaceLogoDownload(principal)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
