import { MAX_WEBHOOK_BYTES } from "@/lib/billing/schemas";
import { handleStripeWebhook } from "@/lib/billing/stripe-webhook";
import { readTextBody } from "@/lib/http/body";
import { json } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";

/** Stripe's events; the signature, not a bearer credential, proves where they come from. */
export async function POST(request: Request): Promise<Response> {
  return handleErrors(async () => {
    const payload = await readTextBody(request, MAX_WEBHOOK_BYTES);
    const outcome = await handleStripeWebhook(payload, request.headers.get("stripe-signature"));
    return json({ received: true, outcome });
  });
}
