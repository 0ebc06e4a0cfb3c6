import type { DbClient } from "@/lib/db/client";
import { currentDestination, pendingRepoints, storedSchedule } from "./routing";
import * as store from "./store";
import type { LinkRow } from "./store";

/**
 * Writes into the link what its schedule has already made true at `now`: the latest due
 * destination becomes its own (a repoint: quarantine afresh) and the due entries leave the
 * schedule. Resolution already served the new destination from `at` on (it picks by the clock);
 * this makes the row say so. True when anything was due.
 */
export async function foldDueRepoints(
  client: DbClient,
  link: Pick<LinkRow, "id" | "destination" | "schedule">,
  now: number,
): Promise<boolean> {
  const schedule = storedSchedule(link.schedule);
  const pending = pendingRepoints(schedule, now);
  if (pending.length === schedule.length) return false;
  const destination = currentDestination(link.destination, schedule, now);
  if (destination !== link.destination) await store.repointLink(client, link.id, destination);
  await store.setSchedule(client, link.id, pending);
  return true;
}
