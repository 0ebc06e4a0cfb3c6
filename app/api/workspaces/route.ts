import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { describeWorkspace } from "@/lib/workspaces/operations";
import { describeWorkspaces } from "@/lib/workspaces/service";

export const GET = apiRoute(describeWorkspace, async ({ principal }) => json(await describeWorkspaces(principal)));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
