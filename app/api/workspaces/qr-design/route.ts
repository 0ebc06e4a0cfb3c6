import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getWorkspaceQrDesign, setWorkspaceQrDesign } from "@/lib/qr/operations";
import { saveWorkspaceDesign, workspaceDesign } from "@/lib/qr/service";

export const GET = apiRoute(getWorkspaceQrDesign, async ({ principal, reply }) => reply(200, await workspaceDesign(principal)));

export const PUT = apiRoute(setWorkspaceQrDesign, async ({ principal, body, reply }) =>
  reply(200, await saveWorkspaceDesign(principal, body)),
);

export const { POST, PATCH, DELETE, OPTIONS } = otherMethods({ GET, PUT });
