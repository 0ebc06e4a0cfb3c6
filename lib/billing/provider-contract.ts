import type { PlanChoice } from "./plans";
import type { BillingSubject } from "./store";
import type { ProviderName } from "./types";

/** What checkout and the portal need from a payment provider; Stripe and the local stand-in both offer it. */
export type BillingProvider = {
  name: ProviderName;
  /** Where to send the customer to pay for `choice`. */
  checkoutUrl(subject: BillingSubject, choice: PlanChoice): Promise<string>;
  /** Where the customer manages, changes or cancels the subscription. */
  portalUrl(subject: BillingSubject): Promise<string>;
};
