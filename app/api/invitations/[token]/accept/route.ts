import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as memberOperations from "@/lib/members/operations";
import { acceptInvitation } from "@/lib/members/service";

export const POST = apiRoute(memberOperations.acceptInvitation, async ({ principal, params, reply }) =>
  reply(200, await acceptInvitation(principal, params.token)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
