import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { inviteMember as inviteMemberOperation, listMembers as listMembersOperation } from "@/lib/members/operations";
import { inviteMember, listMembers } from "@/lib/members/service";

export const GET = apiRoute(listMembersOperation, async ({ principal }) => json({ members: await listMembers(principal) }));

export const POST = apiRoute(inviteMemberOperation, async ({ principal, body }) =>
  json(await inviteMember(principal, body), 201),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
