import { DomainError } from "@/lib/http/errors";
import type { CreateLinkInput } from "@/lib/links/schemas";
import { ensureSlugAvailable, prepareLink } from "@/lib/links/service";
import { checkDestination } from "@/lib/safety/destination";
import { readPaymentCredential } from "./credential";
import { payForLink } from "./fulfilment";
import { ASK_AGAIN, challenge, priceSentence } from "./responses";
import { paymentSettings } from "./settings";
import { isClaimed } from "./store";
import type { CredentialReading, Purchase } from "./types";

/**
 * POST /api/links without an account, after the route's client write limit and body validation.
 * Every check that can refuse the link (400, 409, 422) runs before any challenge, so an agent
 * never pays for a request that cannot succeed (a resend of a credential on record has paid
 * already and skips 409 and the safety check). Then: no credential → 402 with both challenges;
 * a credential → settle, and 201 with the paid link.
 */
export async function buyLink(request: Request, input: CreateLinkInput): Promise<Response> {
  return buyLinkWith(readPaymentCredential(request), input);
}

/** The purchase, whichever door the credential came through (HTTP headers, or a tool call's _meta). */
export async function buyLinkWith(reading: CredentialReading, input: CreateLinkInput): Promise<Response> {
  refuseAccountFields(input);
  const purchase = (await isResend(reading)) ? await resentPurchase(input) : await newPurchase(input);
  if (reading.kind === "none") return challenge(purchase, priceSentence(paymentSettings()));
  if (reading.kind === "malformed") return challenge(purchase, `${reading.reason} ${ASK_AGAIN}`);
  return payForLink(purchase, reading.credential);
}

/** These exact credential bytes already hold a payment: its outcome is on record, whatever changed since. */
async function isResend(reading: CredentialReading): Promise<boolean> {
  return reading.kind === "present" && (await isClaimed(reading.credential));
}

async function newPurchase(input: CreateLinkInput): Promise<Purchase> {
  const prepared = await prepareLink(null, input);
  await ensureSlugAvailable(prepared);
  return { destination: prepared.destination, slug: prepared.slug };
}

/**
 * A resend skips the refusals made before payment: its own slug is taken by now (by its link, or
 * by someone else while it settled; the payment then still buys a link) and the safety verdict
 * may have changed. The destination is normalised as before so the purchase compares.
 */
async function resentPurchase(input: CreateLinkInput): Promise<Purchase> {
  const decision = checkDestination(input.destination);
  // A destination the rules refuse gets prepareLink's own refusal (400 or 422).
  if (!decision.ok) return newPurchase(input);
  return { destination: decision.url, slug: input.slug ?? null };
}

/** What only an account's links carry: a payment buys a destination and a slug, nothing else. */
function refuseAccountFields(input: CreateLinkInput): void {
  if (input.domain_id) {
    throw new DomainError(
      "invalid_request",
      "A link bought without an account lives on the default short host; domain_id needs an account's API key.",
    );
  }
  const accountFields = [input.title, input.tags, input.password, input.scan_limit, input.preview];
  if (accountFields.some((field) => field !== undefined)) {
    throw new DomainError(
      "invalid_request",
      "A link bought without an account carries no title, tags, password, scan limit or preview; set them with the account's API key (PATCH /api/links/{id}).",
    );
  }
}
