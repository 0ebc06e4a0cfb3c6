import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { inviteMember as inviteMemberOperation, listMembers as listMembersOperation } from "@/lib/members/operations";
import { inviteMember, listMembers } from "@/lib/members/service";

export const GET = apiRoute(listMembersOperation, async ({ principal, reply }) =>
  reply(200, { members: await listMembers(principal) }),
);

export const POST = apiRoute(inviteMemberOperation, async ({ principal, body, reply }) =>
  reply(201, await inviteMember(principal, body)),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
