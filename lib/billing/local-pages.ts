import { standingNow } from "./entitlement";
import { isExpired, localCheckoutPath, localPortalPath } from "./local-provider";
import { PLANS, type PlanChoice, describePrice, offeredChoices } from "./plans";
import type { Standing } from "./state";
import * as store from "./store";

/** What the local checkout and portal pages show; their forms post to the route handlers beside them. */
type PageBase = { workspaceName: string };

export type LocalCheckoutView = PageBase & {
  state: "open" | "complete" | "expired";
  planName: string;
  price: string;
  allowance: string;
  completeAction: string;
};

export type PlanOption = PlanChoice & { label: string; current: boolean };

export type LocalPortalView = PageBase & {
  expired: boolean;
  standing: Standing;
  /** The current billing cycle's first and last day, in words ("26 November 2026"). */
  cycle: { from: string; until: string } | null;
  plan: string | null;
  billedByStripe: boolean;
  options: PlanOption[];
  cancelAction: string;
  changeAction: string;
};

export async function localCheckoutView(sessionId: string): Promise<LocalCheckoutView | null> {
  const session = await store.findLocalSession(sessionId, "checkout");
  if (!session?.plan || !session.interval) return null;
  const { name } = await store.findBillingSubject(session.workspaceId);
  const choice = { plan: session.plan, interval: session.interval };
  const cap = PLANS[choice.plan].cap;
  return {
    workspaceName: name,
    state: session.completedAt ? "complete" : isExpired(session) ? "expired" : "open",
    planName: PLANS[choice.plan].name,
    price: describePrice(choice),
    allowance: cap === null ? "No cap on new links" : `${cap} new links per billing cycle`,
    completeAction: `${localCheckoutPath(session.id)}/complete`,
  };
}

export async function localPortalView(sessionId: string): Promise<LocalPortalView | null> {
  const session = await store.findLocalSession(sessionId, "portal");
  if (!session) return null;
  const subject = await store.findBillingSubject(session.workspaceId);
  const standing = standingNow(subject.account);
  const current =
    standing.active && standing.plan && standing.interval ? { plan: standing.plan, interval: standing.interval } : null;
  return {
    workspaceName: subject.name,
    expired: isExpired(session),
    standing,
    cycle: standing.cycle && { from: inWords(standing.cycle.start), until: inWords(new Date(standing.cycle.end.getTime() - 1)) },
    plan: current ? `${PLANS[current.plan].name}, ${describePrice(current)}` : null,
    billedByStripe: subject.account?.provider === "stripe" && standing.active,
    options: offeredChoices().map((choice) => ({
      ...choice,
      label: `${PLANS[choice.plan].name}, ${describePrice(choice)}`,
      current: current?.plan === choice.plan && current.interval === choice.interval,
    })),
    cancelAction: `${localPortalPath(session.id)}/cancel`,
    changeAction: `${localPortalPath(session.id)}/change`,
  };
}

/** Billing cycles begin and end at an instant in UTC; a person reads the day it falls on, in words. */
const DAY_IN_WORDS = new Intl.DateTimeFormat("en-AU", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

function inWords(date: Date): string {
  return DAY_IN_WORDS.format(date);
}
