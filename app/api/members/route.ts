import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { listMembers as listMembersOperation } from "@/lib/workspaces/operations";
import { listMembers } from "@/lib/workspaces/service";

export const GET = apiRoute(listMembersOperation, async ({ principal }) => json({ members: await listMembers(principal) }));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
