import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { inviteMember } from "@/lib/members/invitations";
import * as memberOperations from "@/lib/members/operations";
import { listMembers } from "@/lib/members/service";

export const GET = apiRoute(memberOperations.listMembers, async ({ principal, reply }) =>
  reply(200, { members: await listMembers(principal) }),
);

export const POST = apiRoute(memberOperations.inviteMember, async ({ principal, body, reply }) =>
  reply(201, await inviteMember(principal, body)),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
