import { config } from "@/lib/config";

export const PLAN_IDS = ["starter", "unlimited"] as const;
export const INTERVALS = ["month", "year"] as const;

export type PlanId = (typeof PLAN_IDS)[number];
export type Interval = (typeof INTERVALS)[number];

/** Billing is in Australian dollars; amounts are in cents. */
export const CURRENCY = "AUD";

type Plan = {
  name: string;
  /** New links per billing cycle; null means no cap. */
  cap: number | null;
  amounts: Partial<Record<Interval, number>>;
};

/** The catalogue. Stripe's prices (ids in configuration) must charge these amounts. */
export const PLANS: Record<PlanId, Plan> = {
  starter: { name: "Starter", cap: 100, amounts: { month: 1900 } },
  unlimited: { name: "Unlimited", cap: null, amounts: { month: 4900, year: 49000 } },
};

export const DEFAULT_PLAN: PlanId = "unlimited";
export const DEFAULT_INTERVAL: Interval = "month";
/** What a customer with a spent allowance moves to. */
export const UPGRADE_PLAN: PlanId = "unlimited";

export type PlanChoice = { plan: PlanId; interval: Interval };

export function isOffered({ plan, interval }: PlanChoice): boolean {
  return PLANS[plan].amounts[interval] !== undefined;
}

/** Every plan and interval that can be bought, cheapest first. */
export function offeredChoices(): PlanChoice[] {
  return PLAN_IDS.flatMap((plan) =>
    INTERVALS.filter((interval) => isOffered({ plan, interval })).map((interval) => ({ plan, interval })),
  );
}

/** "49.00": the price in currency units, as the PaymentRequired body carries it. */
export function priceOf({ plan, interval }: PlanChoice): string {
  const cents = PLANS[plan].amounts[interval];
  if (cents === undefined) throw new Error(`${plan} is not sold by the ${interval}.`);
  return (cents / 100).toFixed(2);
}

/** "49.00 AUD a month". */
export function describePrice(choice: PlanChoice): string {
  return `${priceOf(choice)} ${CURRENCY} a ${choice.interval}`;
}

/** The Stripe price that charges for this plan and interval (configuration: STRIPE_PRICE_*). */
export function stripePriceId(choice: PlanChoice): string {
  const id = stripePriceIds()[`${choice.plan}:${choice.interval}`];
  if (!id) throw new Error(`No Stripe price is configured for ${choice.plan} by the ${choice.interval}.`);
  return id;
}

/** The plan and interval a configured Stripe price stands for; null for a price this service does not sell. */
export function choiceForStripePrice(priceId: string): PlanChoice | null {
  const entry = Object.entries(stripePriceIds()).find(([, id]) => id === priceId);
  if (!entry) return null;
  const [plan, interval] = entry[0].split(":") as [PlanId, Interval];
  return { plan, interval };
}

function stripePriceIds(): Record<string, string | undefined> {
  const { STRIPE_PRICE_STARTER_MONTH, STRIPE_PRICE_UNLIMITED_MONTH, STRIPE_PRICE_UNLIMITED_YEAR } = config();
  return {
    "starter:month": STRIPE_PRICE_STARTER_MONTH,
    "unlimited:month": STRIPE_PRICE_UNLIMITED_MONTH,
    "unlimited:year": STRIPE_PRICE_UNLIMITED_YEAR,
  };
}
