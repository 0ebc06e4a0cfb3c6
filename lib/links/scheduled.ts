import { clock } from "@/lib/clock";
import { type DbClient, transaction } from "@/lib/db/client";
import { linkChanged } from "./changes";
import { destinationNow } from "./destinations";
import { pendingRepoints, storedSchedule } from "./routing";
import type { ScheduledRepointRun } from "./schemas";
import type { LinkRow } from "./store";
import * as store from "./store";

/**
 * Writes into the link what its schedule has already made true at `now`: the latest due
 * destination becomes its own (a repoint: quarantine afresh) and the due entries leave the
 * schedule. Resolution already served the new destination from `at` on (it picks by the clock);
 * this makes the row say so. A link in abuse keeps its destination and status: its due entries
 * are dropped. True when anything was due.
 */
export async function foldDueRepoints(
  client: DbClient,
  link: Pick<LinkRow, "id" | "status" | "destination" | "schedule">,
  now: number,
): Promise<boolean> {
  const schedule = storedSchedule(link.schedule);
  const pending = pendingRepoints(schedule, now);
  if (pending.length === schedule.length) return false;
  const destination = destinationNow({ ...link, schedule }, now);
  if (destination !== link.destination) await store.repointLink(client, link.id, destination);
  await store.setSchedule(client, link.id, pending);
  return true;
}

/** Links folded in one pass at most; the rest wait for the next (they are served right meanwhile). */
const LINKS_PER_PASS = 500;

/**
 * The background fold (Vercel Cron's GET /api/cron/repoints, the self-hosted server's timer): each
 * link whose scheduled repoint has come is folded and announced (link.updated), in one transaction
 * with the row locked. Visits never wait for it: resolution picks the destination by the clock from
 * the schedule it cached, so a late pass delays only the row and the webhook, never the redirect.
 */
export async function applyDueRepoints(): Promise<ScheduledRepointRun> {
  const now = clock().now();
  let applied = 0;
  for (const id of await store.linksWithDueRepoints(now, LINKS_PER_PASS)) {
    const folded = await transaction(async (tx) => {
      const before = await store.readLinkForUpdate(tx, id);
      if (!(await foldDueRepoints(tx, before, now))) return false;
      await linkChanged(tx, { kind: "repoint_applied", link: await store.readLink(id, tx), before, by: { kind: "service" } });
      return true;
    });
    if (folded) applied++;
  }
  return { applied };
}
