import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { cancelLocalSubscription, localPortalPath } from "@/lib/billing/local-provider";
import { seeOther } from "@/lib/http/respond";

/** The portal page's confirmed "Cancel subscription" form; the portal session id in the path is the capability. */
export const POST = apiRoute({ auth: "public", path: "/billing/local/portal/{id}/cancel" }, async ({ params }) => {
  await cancelLocalSubscription(params.id);
  return seeOther(`${localPortalPath(params.id)}?done=cancelled`);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
