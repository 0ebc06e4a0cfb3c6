import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";
import { listMembers } from "@/lib/workspaces/service";

export const GET = apiRoute({}, async ({ principal }) => json({ members: await listMembers(principal) }));
