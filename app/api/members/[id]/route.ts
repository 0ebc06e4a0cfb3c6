import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { changeMemberRole, removeMember as removeMemberOperation } from "@/lib/members/operations";
import { changeRole, removeMember } from "@/lib/members/service";

export const PATCH = apiRoute(changeMemberRole, async ({ principal, params, body }) =>
  json(await changeRole(principal, params.id, body.role)),
);

export const DELETE = apiRoute(removeMemberOperation, async ({ principal, params }) =>
  json(await removeMember(principal, params.id)),
);

export const { GET, POST, PUT, OPTIONS } = otherMethods({ PATCH, DELETE });
