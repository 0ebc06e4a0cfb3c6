import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { acceptInvitation } from "@/lib/members/invitations";
import * as memberOperations from "@/lib/members/operations";

export const POST = apiRoute(memberOperations.acceptInvitation, async ({ principal, params, reply }) =>
  reply(200, await acceptInvitation(principal, params.token)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
