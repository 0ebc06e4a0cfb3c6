import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { applyDueRepoints } from "@/lib/links/scheduled";
import { resetResolutionRuntime } from "@/lib/resolution/runtime";
import { runWebhookDeliveries } from "@/lib/webhooks/worker";
import { call, newUser, type TestUser } from "../support/api";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { visit } from "../support/visits";

const MINUTE = 60_000;
let now = Date.UTC(2026, 10, 20, 12);
let receiver: WebhookReceiver;

beforeAll(() => {
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = "1";
  resetConfig();
});

afterAll(() => {
  delete process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  resetConfig();
});

beforeEach(async () => {
  now = Date.UTC(2026, 10, 20, 12);
  setClock({ now: () => now });
  resetResolutionRuntime();
  receiver = await startWebhookReceiver();
});

afterEach(async () => {
  setClock(undefined);
  await receiver.close();
});

async function createLink(user: TestUser, destination = "https://example.com/old") {
  const created = await call("POST", "/api/links", { token: user.token, body: { destination } });
  expect(created.status, created.text).toBe(201);
  return created.body as { id: string; slug: string };
}

function schedule(user: TestUser, id: string, entries: unknown) {
  return call("PATCH", `/api/links/${id}`, { token: user.token, body: { schedule: entries } });
}

describe("scheduled repoints", () => {
  it("serve the old destination just before `at` and the new one from `at`, from the same cached copy", async () => {
    const user = await newUser("schedule-visits");
    const link = await createLink(user);
    const at = now + 10 * MINUTE;
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

    now = at - 1;
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/old");
    now = at;
    // No invalidation between the two visits: the cached entry is still fresh, and carries the schedule.
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/new");
    expect((await call("GET", `/api/links/${link.id}`, { token: user.token })).body).toMatchObject({
      destination: "https://example.com/new",
      schedule: [{ at: at + MINUTE, destination: "https://example.com/later" }],
    });
    now = at + MINUTE;
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/later");
  });

  it("are written in by the background pass, back in quarantine, and announced once as link.updated", async () => {
    const user = await newUser("schedule-fold");
    const created = await call("POST", "/api/webhooks", {
      token: user.token,
      body: { url: receiver.url, events: ["link.updated"] },
    });
    receiver.secret = created.body.secret;
    const link = await createLink(user);
    await db().link.update({ where: { id: link.id }, data: { status: 0 } });
    const at = now + MINUTE;
    await schedule(user, link.id, [{ at, destination: "https://example.com/new" }]);

    expect(await applyDueRepoints()).toEqual({ applied: 0 });
    now = at;
    expect(await applyDueRepoints()).toEqual({ applied: 1 });
    expect(await applyDueRepoints()).toEqual({ applied: 0 });
    const row = await db().link.findUniqueOrThrow({ where: { id: link.id } });
    expect(row).toMatchObject({ destination: "https://example.com/new", schedule: null, status: 1 });
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/new");

    while ((await runWebhookDeliveries()).attempted > 0);
    expect(receiver.unverified).toBe(0);
    expect(receiver.received.map((message) => [message.type, message.data.destination, message.data.schedule])).toEqual([
      ["link.updated", "https://example.com/old", [{ at, destination: "https://example.com/new" }]],
      ["link.updated", "https://example.com/new", []],
    ]);
  });

  it("keep a due repoint that was not written in yet when the schedule is edited", async () => {
    const user = await newUser("schedule-edit");
    const link = await createLink(user);
    const at = now + MINUTE;
    await schedule(user, link.id, [{ at, destination: "https://example.com/new" }]);
    now = at + 1;
    const cleared = await schedule(user, link.id, []);
    expect(cleared.body).toMatchObject({ destination: "https://example.com/new", schedule: [] });
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/new");
  });

  it("refuse a time not in the future, more than 20 repoints, and an internal destination, changing nothing", async () => {
    const user = await newUser("schedule-refused");
    const link = await createLink(user);
    const past = await schedule(user, link.id, [{ at: now, destination: "https://example.com/new" }]);
    expect(past.status).toBe(400);
    expect(past.body.error).toMatch(/schedule\[0\]\.at must be in the future/);
    const many = Array.from({ length: 21 }, (_, index) => ({
      at: now + (index + 1) * MINUTE,
      destination: "https://example.com/n",
    }));
    expect((await schedule(user, link.id, many)).status).toBe(400);
    const internal = await schedule(user, link.id, [
      { at: now + MINUTE, destination: "https://example.com/fine" },
      { at: now + 2 * MINUTE, destination: "http://10.0.0.7/" },
    ]);
    expect(internal.status).toBe(422);
    expect(internal.body.error).toMatch(/^schedule\[1\]\.destination: /);
    expect((await call("GET", `/api/links/${link.id}`, { token: user.token })).body.schedule).toEqual([]);
    expect((await schedule(user, link.id, many.slice(0, 20))).status).toBe(200);
  });
});
