import { afterCommit, db, transaction } from "@/lib/db/client";
import { linkChanged } from "@/lib/links/changes";
import type { Invalidation } from "@/lib/links/invalidation";
import { applyDueRepoints } from "@/lib/links/scheduled";
import { readLink } from "@/lib/links/store";
import { blockForAbuse, setStatus } from "@/lib/resolution/store";
import { describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { heardInvalidations } from "../support/invalidations";
import { createLink, editLink, linkEditWorld, listenTo } from "../support/link-edit-world";

const world = linkEditWorld();
const LINK_EVENTS = ["link.created", "link.updated", "link.archived", "link.restored", "link.status_changed"];

const invalidations = heardInvalidations();

/** The webhook messages written for this workspace's endpoint, oldest first. */
async function messagesOf(user: TestUser): Promise<string[]> {
  const webhooks = await db().webhook.findMany({ where: { workspaceId: user.workspaceId }, select: { id: true } });
  const rows = await db().webhookDelivery.findMany({
    where: { webhookId: { in: webhooks.map((webhook) => webhook.id) } },
    orderBy: { id: "asc" },
    select: { eventType: true },
  });
  return rows.map((row) => row.eventType);
}

describe("linkChanged, the one call for every change to a link", () => {
  it("writes one webhook message and one announcement for each change, whichever path made it", async () => {
    const user = await newUser("link-changes");
    await listenTo(world, user, LINK_EVENTS);
    const link = await createLink(user, "https://example.com/changes");
    const announced = [{ kind: "link", host: null, slug: link.slug }];
    expect(await messagesOf(user)).toEqual(["link.created"]);
    expect(invalidations.heard).toEqual(announced);

    invalidations.heard = [];
    expect((await editLink(user, link.id, { title: "Menu" })).status).toBe(200);
    expect((await call("DELETE", `/api/links/${link.id}`, { token: user.token })).status).toBe(200);
    expect((await call("DELETE", `/api/links/${link.id}`, { token: user.token })).status).toBe(200);
    expect((await call("POST", `/api/links/${link.id}/restore`, { token: user.token })).status).toBe(200);
    expect(await setStatus(link.id, 0, null)).toMatchObject({ status: 0 });
    expect(await blockForAbuse(link.id, "listed (test: phishing)")).toMatchObject({ status: 2 });
    expect(await blockForAbuse(link.id, "listed again")).toBeNull();
    expect(await setStatus(link.id, 0, null)).toMatchObject({ status: 0 });
    const at = world.now + 60_000;
    expect((await editLink(user, link.id, { schedule: [{ at, destination: "https://example.com/later" }] })).status).toBe(200);
    world.now = at;
    expect(await applyDueRepoints()).toEqual({ applied: 1 });

    expect((await messagesOf(user)).slice(1)).toEqual([
      "link.updated",
      "link.archived",
      "link.restored",
      "link.status_changed",
      "link.status_changed",
      "link.status_changed",
      "link.updated",
      "link.updated",
    ]);
    expect(invalidations.heard).toEqual(Array(8).fill(announced[0]));
  });

  it("announces a change only once its transaction has committed", async () => {
    const user = await newUser("link-changes-commit");
    const link = await createLink(user, "https://example.com/commit-order");
    invalidations.heard = [];
    let heardInside: Invalidation[] | undefined;
    await transaction(async (tx) => {
      const row = await readLink(link.id, tx);
      await linkChanged(tx, { kind: "edited", link: row, before: row, by: { kind: "service" } });
      heardInside = [...invalidations.heard];
    });
    expect(heardInside).toEqual([]);
    expect(invalidations.heard).toEqual([{ kind: "link", host: null, slug: link.slug }]);
  });

  it("writes and announces nothing for a transaction that rolls back", async () => {
    const user = await newUser("link-changes-rollback");
    await listenTo(world, user, LINK_EVENTS);
    const link = await createLink(user, "https://example.com/rollback");
    invalidations.heard = [];
    const rolledBack = transaction(async (tx) => {
      const row = await readLink(link.id, tx);
      await linkChanged(tx, { kind: "edited", link: row, before: row, by: { kind: "service" } });
      throw new Error("a later write of the same transaction failed");
    });
    await expect(rolledBack).rejects.toThrow(/later write/);
    expect(await messagesOf(user)).toEqual(["link.created"]);
    expect(invalidations.heard).toEqual([]);
  });

  it("refuses to queue an announcement outside a transaction, where there is no commit to wait for", () => {
    expect(() => afterCommit(db(), () => undefined)).toThrow(/transaction\(\)/);
  });
});
