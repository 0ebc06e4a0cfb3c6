import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { completeLocalCheckout, localCheckoutPath } from "@/lib/billing/local-provider";
import { seeOther } from "@/lib/http/respond";

/** The checkout page's "Complete purchase" form; the checkout id in the path is the capability. */
export const POST = apiRoute<{ auth: "public" }, { id: string }>({ auth: "public" }, async ({ params }) => {
  await completeLocalCheckout(params.id);
  return seeOther(localCheckoutPath(params.id));
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
