import { readJsonBody, validate } from "@/lib/http/body";
import { ApiError } from "@/lib/http/errors";
import { handleErrors } from "@/lib/http/route";
import { enforceClientWriteLimit } from "@/lib/http/write-limit";
import { createLinkBody, type CreateLinkInput } from "@/lib/links/schemas";
import { ensureSlugAvailable, prepareLink } from "@/lib/links/service";
import { readPaymentCredential } from "./credential";
import { payForLink } from "./fulfilment";
import { ASK_AGAIN, challenge, priceSentence } from "./responses";
import { paymentSettings } from "./settings";
import type { Purchase } from "./types";

/**
 * POST /api/links without an account. Every check that can refuse the link (400, 409, 422) runs
 * before any challenge, so an agent never pays for a request that cannot succeed. Then: no
 * credential → 402 with both challenges; a credential → settle, and 201 with the paid link.
 */
export function buyLink(request: Request): Promise<Response> {
  return handleErrors(async () => {
    await enforceClientWriteLimit(request);
    const purchase = await preparePurchase(validate(createLinkBody, await readJsonBody(request), "body"));
    const reading = readPaymentCredential(request);
    if (reading.kind === "none") return challenge(purchase, priceSentence(paymentSettings()));
    if (reading.kind === "malformed") return challenge(purchase, `${reading.reason} ${ASK_AGAIN}`);
    return payForLink(purchase, reading.credential);
  });
}

async function preparePurchase(input: CreateLinkInput): Promise<Purchase> {
  if (input.domain_id) {
    throw new ApiError(400, "A link bought without an account lives on the default short host; domain_id needs an account's API key.");
  }
  const prepared = await prepareLink(null, input);
  await ensureSlugAvailable(prepared);
  return { destination: prepared.destination, slug: prepared.slug };
}
