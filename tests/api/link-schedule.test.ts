import { db } from "@/lib/db/client";
import { applyDueRepoints } from "@/lib/links/scheduled";
import { runWebhookDeliveries } from "@/lib/webhooks/worker";
import { describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { createLink, editLink, linkEditWorld, listenTo } from "../support/link-edit-world";
import { visit } from "../support/visits";

const MINUTE = 60_000;
const world = linkEditWorld();

const createOldLink = (user: TestUser) => createLink(user, "https://example.com/old");

function schedule(user: TestUser, id: string, entries: unknown) {
  return editLink(user, id, { schedule: entries });
}

describe("scheduled repoints", () => {
  it("serve the old destination just before `at` and the new one from `at`, from the same cached copy", async () => {
    const user = await newUser("schedule-visits");
    const link = await createOldLink(user);
    const at = world.now + 10 * MINUTE;
    const set = await schedule(user, link.id, [
      { at: at + MINUTE, destination: "https://example.com/later" },
      { at, destination: "https://EXAMPLE.com/new" },
    ]);
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      destination: "https://example.com/old",
      schedule: [
        { at, destination: "https://example.com/new" },
        { at: at + MINUTE, destination: "https://example.com/later" },
      ],
    });

    world.now = at - 1;
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/old");
    world.now = at;
    // No invalidation between the two visits: the cached entry is still fresh, and carries the schedule.
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/new");
    expect((await call("GET", `/api/links/${link.id}`, { token: user.token })).body).toMatchObject({
      destination: "https://example.com/new",
      schedule: [{ at: at + MINUTE, destination: "https://example.com/later" }],
    });
    world.now = at + MINUTE;
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/later");
  });

  it("are written in by the background pass, back in quarantine, and announced once as link.updated", async () => {
    const user = await newUser("schedule-fold");
    await listenTo(world, user, ["link.updated"]);
    const link = await createOldLink(user);
    await db().link.update({ where: { id: link.id }, data: { status: 0 } });
    const at = world.now + MINUTE;
    await schedule(user, link.id, [{ at, destination: "https://example.com/new" }]);

    expect(await applyDueRepoints()).toEqual({ applied: 0 });
    world.now = at;
    expect(await applyDueRepoints()).toEqual({ applied: 1 });
    expect(await applyDueRepoints()).toEqual({ applied: 0 });
    const row = await db().link.findUniqueOrThrow({ where: { id: link.id } });
    expect(row).toMatchObject({ destination: "https://example.com/new", schedule: null, status: 1 });
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/new");

    while ((await runWebhookDeliveries()).attempted > 0);
    expect(world.receiver.unverified).toBe(0);
    expect(world.receiver.received.map((message) => [message.type, message.data.destination, message.data.schedule])).toEqual([
      ["link.updated", "https://example.com/old", [{ at, destination: "https://example.com/new" }]],
      ["link.updated", "https://example.com/new", []],
    ]);
  });

  it("never lift a block: a repoint that comes due while the link is in abuse is dropped, not written in", async () => {
    const user = await newUser("schedule-blocked");
    const link = await createOldLink(user);
    const at = world.now + MINUTE;
    await schedule(user, link.id, [
      { at, destination: "https://example.com/new" },
      { at: at + MINUTE, destination: "https://example.com/later" },
    ]);
    await db().link.update({ where: { id: link.id }, data: { status: 2, abuseReason: "phishing (operator)" } });

    world.now = at;
    expect(await applyDueRepoints()).toEqual({ applied: 1 });
    const row = await db().link.findUniqueOrThrow({ where: { id: link.id } });
    expect(row).toMatchObject({ status: 2, destination: "https://example.com/old", abuseReason: "phishing (operator)" });
    expect(row.schedule).toEqual([{ at: at + MINUTE, destination: "https://example.com/later" }]);
    expect((await visit(`/${link.slug}`)).status).toBe(403);
    expect((await call("GET", `/api/links/${link.id}`, { token: user.token })).body).toMatchObject({
      status: 2,
      destination: "https://example.com/old",
      schedule: [{ at: at + MINUTE, destination: "https://example.com/later" }],
    });
  });

  it("keep a due repoint that was not written in yet when the schedule is edited", async () => {
    const user = await newUser("schedule-edit");
    const link = await createOldLink(user);
    const at = world.now + MINUTE;
    await schedule(user, link.id, [{ at, destination: "https://example.com/new" }]);
    world.now = at + 1;
    const cleared = await schedule(user, link.id, []);
    expect(cleared.body).toMatchObject({ destination: "https://example.com/new", schedule: [] });
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/new");
  });

  it("refuse a time not in the future, more than 20 repoints, and an internal destination, changing nothing", async () => {
    const user = await newUser("schedule-refused");
    const link = await createOldLink(user);
    const past = await schedule(user, link.id, [{ at: world.now, destination: "https://example.com/new" }]);
    expect(past.status).toBe(400);
    expect(past.body.error).toMatch(/schedule\[0\]\.at must be in the future/);
    const many = Array.from({ length: 21 }, (_, index) => ({
      at: world.now + (index + 1) * MINUTE,
      destination: "https://example.com/n",
    }));
    expect((await schedule(user, link.id, many)).status).toBe(400);
    const internal = await schedule(user, link.id, [
      { at: world.now + MINUTE, destination: "https://example.com/fine" },
      { at: world.now + 2 * MINUTE, destination: "http://10.0.0.7/" },
    ]);
    expect(internal.status).toBe(422);
    expect(internal.body.error).toMatch(/^schedule\[1\]\.destination: /);
    expect((await call("GET", `/api/links/${link.id}`, { token: user.token })).body.schedule).toEqual([]);
    expect((await schedule(user, link.id, many.slice(0, 20))).status).toBe(200);
  });
});
