import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { resendInvitation } from "@/lib/members/invitations";
import * as memberOperations from "@/lib/members/operations";

export const POST = apiRoute(memberOperations.resendInvitation, async ({ principal, params, reply }) =>
  reply(200, await resendInvitation(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
