import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { resendInvitation as resendInvitationOperation } from "@/lib/members/operations";
import { resendInvitation } from "@/lib/members/service";

export const POST = apiRoute(resendInvitationOperation, async ({ principal, params }) =>
  json(await resendInvitation(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
