import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { receiveStripeWebhook } from "@/lib/billing/operations";
import { handleStripeWebhook } from "@/lib/billing/stripe-webhook";

/** Stripe's events; the signature of the raw body, not a bearer credential, proves where they come from. */
export const POST = apiRoute(receiveStripeWebhook, async ({ request, body, reply }) => {
  const outcome = await handleStripeWebhook(body, request.headers.get("stripe-signature"));
  return reply(200, { received: true, outcome });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
