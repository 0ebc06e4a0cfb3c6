/**
 * Routing rules and scheduled repoints as a link stores them, and the one rule for which scheduled
 * destination is current. Pure, and free of the server's schemas: the dashboard's editors ship it
 * to the browser (lib/links/destinations.ts holds what needs a link's status).
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
