import { config } from "@/lib/config";
import { DomainError, forbidden } from "@/lib/http/errors";
import { can, requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { standingNow } from "./entitlement";
import type { PlanChoice } from "./plans";
import { billingProvider } from "./provider";
import type { AccountReport } from "./schemas";
import { LIVE_STATUSES, type Standing } from "./state";
import type { BillingSubject } from "./store";
import * as store from "./store";

/**
 * Where to send the customer to subscribe. Refused while the workspace has a subscription that
 * may still bill (live, even past due, or incomplete): a second one would charge twice. The
 * portal changes plans and settles a failed payment.
 */
export async function startCheckout(principal: Principal, choice: PlanChoice): Promise<{ url: string }> {
  const subject = await billingSubjectFor(principal);
  const status = subject.account?.status ?? "none";
  if (LIVE_STATUSES.has(status) || status === "incomplete") {
    throw new DomainError(
      "conflict",
      `This workspace already has a subscription (${status}); change its plan or settle its payment in ` +
        `the billing portal (POST /api/billing/portal).`,
    );
  }
  return { url: await billingProvider().checkoutUrl(subject, choice) };
}

/** The billing portal, reachable whatever the subscription's state, so a lapsed customer can always pay again. */
export async function openPortal(principal: Principal): Promise<{ url: string }> {
  const subject = await billingSubjectFor(principal);
  return { url: await billingProvider().portalUrl(subject) };
}

/** The workspace's tier, this cycle's quota and what the caller may do. */
export async function describeAccount(principal: Principal): Promise<AccountReport> {
  const subject = await store.findBillingSubject(principal.workspaceId);
  const standing = standingNow(subject.account);
  const used = await linksCreatedThisCycle(subject.id, standing);
  const machine = subject.kind === "machine";
  const editsLinks = can(principal, "links.edit_any") || can(principal, "links.edit_own");
  const allowanceLeft = standing.cap === null || (used ?? 0) < standing.cap;
  return {
    workspace_id: subject.id,
    workspace_kind: subject.kind,
    provider: config().BILLING_PROVIDER ?? null,
    plan: standing.plan,
    interval: standing.interval,
    status: standing.status,
    active: standing.active,
    cancel_at_period_end: standing.cancelAtPeriodEnd,
    grace_ends_at: standing.graceEndsAt?.getTime() ?? null,
    cycle_start: standing.cycle?.start.getTime() ?? null,
    cycle_end: standing.cycle?.end.getTime() ?? null,
    links_created_this_cycle: used,
    cap: standing.cap,
    remaining: standing.cap === null || used === null ? null : Math.max(0, standing.cap - used),
    can: {
      list_links: can(principal, "links.read"),
      create_links: !machine && standing.active && allowanceLeft && can(principal, "links.create"),
      edit_links: (machine || standing.active) && editsLinks,
      archive_links: editsLinks,
      use_custom_domains: !machine && standing.active,
      manage_billing: !machine && can(principal, "billing.manage"),
    },
  };
}

async function billingSubjectFor(principal: Principal): Promise<BillingSubject> {
  requirePermission(
    principal,
    "billing.manage",
    "Only an owner or admin of this workspace (or its API key) can manage its subscription.",
  );
  const subject = await store.findBillingSubject(principal.workspaceId);
  if (subject.kind === "machine") {
    throw forbidden("A machine account has no subscription: it buys each link with a machine payment (MPP or x402).");
  }
  return subject;
}

/** A capped plan reports the allowance it enforces; an uncapped one counts the links created in the cycle. */
async function linksCreatedThisCycle(workspaceId: string, standing: Standing): Promise<number | null> {
  if (!standing.cycle) return null;
  if (standing.cap !== null) return store.unitsUsed(workspaceId, standing.cycle.start);
  return store.countLinksCreated(workspaceId, standing.cycle);
}
