import { currentDestination, pendingRepoints, type ScheduledRepoint } from "./routing";
import { ABUSE } from "./status";

/**
 * The destinations a link holds, for resolution, the Link view, the background fold and the
 * re-check alike, so they never disagree. Apart from lib/links/routing.ts, which the browser gets:
 * the link's status comes with the server's schemas.
 */

/** What a link's destinations are read from: the stored row's (through storedRules and storedSchedule) or the cached link's. */
export type Routing = {
  status: number;
  destination: string;
  rules: readonly { destination: string }[] | null;
  schedule: readonly ScheduledRepoint[] | null;
  /** Where the link points once its scan limit is reached; absent or null: no limit. */
  scanLimit?: { after: number; destination: string } | null;
};

/**
 * Where the link points at `now`: a link in abuse keeps the destination it was blocked with (a
 * scheduled repoint never lifts a block; only an operator's decision does); any other follows its
 * schedule.
 */
export function destinationNow(link: Omit<Routing, "rules">, now: number): string {
  return link.status === ABUSE || link.schedule === null
    ? link.destination
    : currentDestination(link.destination, link.schedule, now);
}

/** Which part of a link holds a destination: its own, a routing rule (index from 0) or a repoint still to come. */
export type Holder =
  { kind: "own" } | { kind: "rule"; index: number } | { kind: "scheduled"; at: number } | { kind: "scan_limit"; after: number };

/**
 * Every destination the link can send a visitor to, now or later, each once (with the first part
 * that holds it): where it points now, each rule's, each scheduled one still to come, the one its
 * scan limit switches to. A safety
 * verdict about any of them is a verdict about the link.
 */
export function destinationsOf(link: Routing, now: number): { destination: string; holder: Holder }[] {
  const held = [
    { destination: destinationNow(link, now), holder: { kind: "own" } as Holder },
    ...(link.rules ?? []).map((rule, index) => ({ destination: rule.destination, holder: { kind: "rule", index } as Holder })),
    ...pendingRepoints(link.schedule ?? [], now).map((entry) => ({
      destination: entry.destination,
      holder: { kind: "scheduled", at: entry.at } as Holder,
    })),
    ...(link.scanLimit
      ? [{ destination: link.scanLimit.destination, holder: { kind: "scan_limit", after: link.scanLimit.after } as Holder }]
      : []),
  ];
  return held.filter((entry, position) => held.findIndex((other) => other.destination === entry.destination) === position);
}
