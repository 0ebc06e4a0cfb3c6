import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as memberOperations from "@/lib/members/operations";
import { changeRole, removeMember } from "@/lib/members/service";

export const PATCH = apiRoute(memberOperations.changeMemberRole, async ({ principal, params, body, reply }) =>
  reply(200, await changeRole(principal, params.id, body.role)),
);

export const DELETE = apiRoute(memberOperations.removeMember, async ({ principal, params, reply }) =>
  reply(200, await removeMember(principal, params.id)),
);

export const { GET, POST, PUT, OPTIONS } = otherMethods({ PATCH, DELETE });
