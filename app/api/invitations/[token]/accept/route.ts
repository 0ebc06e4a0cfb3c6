import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { acceptInvitation as acceptInvitationOperation } from "@/lib/members/operations";
import { acceptInvitation } from "@/lib/members/service";

export const POST = apiRoute(acceptInvitationOperation, async ({ principal, params }) =>
  json(await acceptInvitation(principal, params.token)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
