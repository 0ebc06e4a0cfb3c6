import { ABUSE } from "./status";

/**
 * Routing rules and scheduled repoints as a link stores them, the one rule for which scheduled
 * destination is current, and the destinations a link holds. Pure: resolution, the Link view, the
 * background fold and the re-check all decide with these, so they never disagree.
 */

export const DEVICES = ["mobile", "tablet", "desktop"] as const;
export const SYSTEMS = ["ios", "android", "windows", "macos", "linux"] as const;
export type Device = (typeof DEVICES)[number];
export type OperatingSystem = (typeof SYSTEMS)[number];

export const MAX_RULES = 20;
export const MAX_SCHEDULED = 20;

/** The conditions of a rule: each named list must hold the visitor's value; all named ones must hold. */
export type RuleConditions = {
  country?: string[];
  device?: Device[];
  os?: OperatingSystem[];
  language?: string[];
};

export type RoutingRule = { when: RuleConditions; destination: string };
export type ScheduledRepoint = { at: number; destination: string };

/** The link's rules as stored (a JSON column, written only through the rules' schema), or none. */
export function storedRules(value: unknown): RoutingRule[] {
  return Array.isArray(value) ? (value as RoutingRule[]) : [];
}

/** The link's schedule as stored, in time order, or none. */
export function storedSchedule(value: unknown): ScheduledRepoint[] {
  return Array.isArray(value) ? (value as ScheduledRepoint[]) : [];
}

/**
 * Where the link points at `now`: the latest scheduled destination whose time has come, else its
 * own. The schedule is in time order, so the answer is the last entry at or before now.
 */
export function currentDestination(destination: string, schedule: readonly ScheduledRepoint[], now: number): string {
  let current = destination;
  for (const entry of schedule) {
    if (entry.at > now) break;
    current = entry.destination;
  }
  return current;
}

/** The entries still to come at `now`. */
export function pendingRepoints(schedule: readonly ScheduledRepoint[], now: number): ScheduledRepoint[] {
  return schedule.filter((entry) => entry.at > now);
}

/** What a link's destinations are read from: the stored row's (through storedRules and storedSchedule) or the cached link's. */
export type Routing = {
  status: number;
  destination: string;
  rules: readonly { destination: string }[] | null;
  schedule: readonly ScheduledRepoint[] | null;
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
export type Holder = { kind: "own" } | { kind: "rule"; index: number } | { kind: "scheduled"; at: number };

/**
 * Every destination the link can send a visitor to, now or later, each once (with the first part
 * that holds it): where it points now, each rule's, each scheduled one still to come. A safety
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
  ];
  return held.filter((entry, position) => held.findIndex((other) => other.destination === entry.destination) === position);
}
