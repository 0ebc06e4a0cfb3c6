import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";
import { describeWorkspaces } from "@/lib/workspaces/service";

export const GET = apiRoute({}, async ({ principal }) => json(await describeWorkspaces(principal)));
