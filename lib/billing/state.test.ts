import { describe, expect, it } from "vitest";
import { nextState, standingOf } from "./state";
import type { AccountState, BillingEvent, SubscriptionSnapshot } from "./types";

const DAY = 24 * 60 * 60 * 1000;
const t = (seconds: number) => new Date(Date.UTC(2026, 10, 1) + seconds * 1000);

function snapshot(overrides: Partial<SubscriptionSnapshot> = {}): SubscriptionSnapshot {
  return {
    subscriptionId: "sub_1",
    customerId: "cus_1",
    status: "active",
    plan: "starter",
    interval: "month",
    currentPeriodStart: t(0),
    currentPeriodEnd: new Date(t(0).getTime() + 30 * DAY),
    cancelAtPeriodEnd: false,
    ...overrides,
  };
}

function event(occurredAt: Date, change: BillingEvent["change"]): BillingEvent {
  return { provider: "stripe", id: `evt_${occurredAt.getTime()}`, type: "test", occurredAt, workspaceId: "ws_1", change };
}

const snapshotAt = (seconds: number, overrides: Partial<SubscriptionSnapshot> = {}) =>
  event(t(seconds), { kind: "snapshot", snapshot: snapshot(overrides) });

function applyAll(events: BillingEvent[]): AccountState | null {
  return events.reduce<AccountState | null>((state, next) => nextState(state, next) ?? state, null);
}

describe("nextState", () => {
  it("takes the first snapshot, and a newer one over it", () => {
    expect(applyAll([snapshotAt(10, { status: "incomplete" }), snapshotAt(20)])).toMatchObject({
      status: "active",
      stateAsOf: t(20),
    });
  });

  it("ignores an event older than the state on record, whatever order they arrive in", () => {
    const deleted = snapshotAt(20, { status: "canceled" });
    const earlierUpdate = snapshotAt(10, { status: "active" });
    expect(nextState(applyAll([deleted]), earlierUpdate)).toBeNull();
    expect(applyAll([deleted, earlierUpdate])).toMatchObject({ status: "canceled" });
    expect(applyAll([earlierUpdate, deleted])).toMatchObject({ status: "canceled" });
  });

  it("breaks a tie within one second by the later status, so incomplete never overwrites active", () => {
    expect(applyAll([snapshotAt(10, { status: "active" }), snapshotAt(10, { status: "incomplete" })])).toMatchObject({
      status: "active",
    });
    expect(applyAll([snapshotAt(10, { status: "canceled" }), snapshotAt(10, { status: "active" })])).toMatchObject({
      status: "canceled",
    });
  });

  it("never moves a subscription back to an earlier period", () => {
    const renewed = snapshotAt(10, { currentPeriodStart: t(5) });
    expect(nextState(applyAll([renewed]), snapshotAt(20, { currentPeriodStart: t(0) }))).toBeNull();
  });

  it("lets a late event about an ended subscription leave the workspace's new live one alone", () => {
    const replaced = applyAll([snapshotAt(10), snapshotAt(20, { subscriptionId: "sub_2" })]);
    expect(nextState(replaced, snapshotAt(30, { status: "canceled" }))).toBeNull();
    expect(nextState(replaced, snapshotAt(30, { subscriptionId: "sub_2", status: "canceled" }))).toMatchObject({
      status: "canceled",
    });
  });

  it.each(["canceled", "unpaid", "paused", "incomplete"] as const)(
    "never revives a %s subscription from an invoice event",
    (status) => {
      const ended = applyAll([snapshotAt(10, { status })]);
      expect(nextState(ended, event(t(20), { kind: "invoice", subscriptionId: "sub_1", paid: true }))).toBeNull();
      expect(nextState(ended, event(t(20), { kind: "invoice", subscriptionId: "sub_1", paid: false }))).toBeNull();
    },
  );

  it("applies an invoice outcome only to the subscription on record", () => {
    const state = applyAll([snapshotAt(10)]);
    expect(nextState(state, event(t(20), { kind: "invoice", subscriptionId: "sub_1", paid: false }))).toMatchObject({
      status: "past_due",
      pastDueSince: t(20),
    });
    expect(nextState(state, event(t(20), { kind: "invoice", subscriptionId: "sub_other", paid: false }))).toBeNull();
    expect(nextState(null, event(t(20), { kind: "invoice", subscriptionId: "sub_1", paid: true }))).toBeNull();
  });

  it("counts grace from the first report of past_due, not from each repeat", () => {
    const failed = event(t(20), { kind: "invoice", subscriptionId: "sub_1", paid: false });
    const state = applyAll([snapshotAt(10), failed, snapshotAt(30, { status: "past_due" })]);
    expect(state).toMatchObject({ status: "past_due", pastDueSince: t(20) });
    expect(
      applyAll([snapshotAt(10), failed, event(t(40), { kind: "invoice", subscriptionId: "sub_1", paid: true })]),
    ).toMatchObject({ status: "active", pastDueSince: null });
  });
});

describe("standingOf", () => {
  const account = (overrides: Partial<AccountState>): AccountState => ({
    provider: "stripe",
    customerId: "cus_1",
    subscriptionId: "sub_1",
    status: "active",
    plan: "starter",
    interval: "month",
    currentPeriodStart: t(0),
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
    pastDueSince: null,
    stateAsOf: t(0),
    ...overrides,
  });

  it("allows creating and editing when active or trialing, not when never subscribed or ended", () => {
    for (const status of ["active", "trialing"] as const) expect(standingOf(account({ status }), t(60), 7).active).toBe(true);
    for (const status of ["incomplete", "unpaid", "paused", "canceled"] as const)
      expect(standingOf(account({ status }), t(60), 7).active).toBe(false);
    expect(standingOf(null, t(60), 7)).toMatchObject({ status: "none", active: false, cycle: null, cap: null, plan: null });
  });

  it("keeps a past_due subscription active through its grace period only", () => {
    const pastDue = account({ status: "past_due", pastDueSince: t(0) });
    expect(standingOf(pastDue, new Date(t(0).getTime() + 7 * DAY - 1), 7)).toMatchObject({
      active: true,
      graceEndsAt: new Date(t(0).getTime() + 7 * DAY),
    });
    expect(standingOf(pastDue, new Date(t(0).getTime() + 7 * DAY), 7).active).toBe(false);
    expect(standingOf(pastDue, t(1), 0).active).toBe(false);
  });

  it("reports the plan's cap and the cycle that contains now", () => {
    expect(standingOf(account({}), new Date(t(0).getTime() + 45 * DAY), 7)).toMatchObject({
      cap: 100,
      cycle: { start: new Date(Date.UTC(2026, 11, 1)), end: new Date(Date.UTC(2027, 0, 1)) },
    });
    expect(standingOf(account({ plan: "unlimited" }), t(60), 7).cap).toBeNull();
    expect(standingOf(account({ status: "canceled" }), t(60), 7).cycle).toBeNull();
  });
});
