import { transaction } from "@/lib/db/client";
import { nextState } from "./state";
import * as store from "./store";
import type { BillingEvent } from "./types";

export type ApplyOutcome = "applied" | "stale" | "duplicate";

/**
 * The one way subscription state changes, for Stripe's webhook and the local provider alike.
 * Each event id is recorded in the same transaction as its effect, so a replay changes nothing
 * and a failure leaves the event unrecorded for the provider's retry; an event older than the
 * state on record is recorded but changes nothing.
 */
export async function applyBillingEvent(event: BillingEvent): Promise<ApplyOutcome> {
  return transaction(async (tx) => {
    if (!(await store.recordEvent(tx, event))) return "duplicate";
    const current = await store.lockAccount(tx, event.workspaceId, event.provider);
    const next = nextState(current, event);
    if (!next) return "stale";
    await store.saveAccountState(tx, event.workspaceId, next);
    return "applied";
  });
}
