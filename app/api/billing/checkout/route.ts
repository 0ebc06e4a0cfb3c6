import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { startCheckout as startCheckoutOperation } from "@/lib/billing/operations";
import { startCheckout } from "@/lib/billing/service";
import { json } from "@/lib/http/respond";

export const POST = apiRoute(startCheckoutOperation, async ({ principal, body }) => json(await startCheckout(principal, body)));

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
