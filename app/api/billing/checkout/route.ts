import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as billingOperations from "@/lib/billing/operations";
import { startCheckout } from "@/lib/billing/service";

export const POST = apiRoute(billingOperations.startCheckout, async ({ principal, body, reply }) =>
  reply(200, await startCheckout(principal, body)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
