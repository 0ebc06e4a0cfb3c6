import { db } from "@/lib/db/client";
import { runWebhookDeliveries } from "@/lib/webhooks/worker";
import { describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { editLink, linkEditWorld, listenTo } from "../support/link-edit-world";
import { visit } from "../support/visits";

const world = linkEditWorld();
const AFTER = "https://example.com/menu-sold-out";

describe("a scan limit", () => {
  it("repoints at exactly N under 50 concurrent visits, and announces the switch once as link.updated", async () => {
    const user = await newUser("scan-limit");
    await listenTo(world, user, ["link.updated"]);
    const created = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/free-coffee", scan_limit: { after: 20, destination: AFTER } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.scan_limit).toEqual({ after: 20, destination: AFTER, scans: 0 });
    await db().link.update({ where: { id: created.body.id }, data: { status: 0 } });

    const answers = await Promise.all(Array.from({ length: 50 }, () => visit(`/${created.body.slug}`)));
    const locations = answers.map((answer) => [answer.status, answer.headers.Location]);
    expect(locations.filter(([, location]) => location === "https://example.com/free-coffee")).toHaveLength(20);
    expect(locations.filter(([, location]) => location === AFTER)).toHaveLength(30);
    expect(answers.every((answer) => answer.status === 302)).toBe(true);

    const row = await db().link.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row).toMatchObject({ destination: AFTER, scanLimitAfter: null, scanLimitDestination: null, scanLimitCount: 20 });
    const view = (await call("GET", `/api/links/${created.body.id}`, { token: user.token })).body;
    expect([view.destination, view.scan_limit]).toEqual([AFTER, null]);
    expect((await visit(`/${created.body.slug}`)).headers.Location).toBe(AFTER);

    while ((await runWebhookDeliveries()).attempted > 0);
    expect(world.receiver.received.map((message) => [message.type, message.data.destination, message.data.scan_limit])).toEqual([
      ["link.updated", AFTER, null],
    ]);
  });

  it("is set, shown with its count, started afresh and removed with PATCH, its destination through the gate", async () => {
    const user = await newUser("scan-limit-patch");
    const created = await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/flyer" } });
    const set = await editLink(user, created.body.id, { scan_limit: { after: 5, destination: "https://EXAMPLE.com/later" } });
    expect([set.status, set.body.scan_limit], set.text).toEqual([
      200,
      { after: 5, destination: "https://example.com/later", scans: 0 },
    ]);
    for (let index = 0; index < 2; index++)
      expect((await visit(`/${created.body.slug}`)).headers.Location).toBe("https://example.com/flyer");
    expect((await call("GET", `/api/links/${created.body.id}`, { token: user.token })).body.scan_limit.scans).toBe(2);

    const inward = await editLink(user, created.body.id, { scan_limit: { after: 5, destination: "http://10.0.0.1/" } });
    expect([inward.status, inward.body.error]).toEqual([422, expect.stringMatching(/^scan_limit\.destination: /)]);
    const zero = await editLink(user, created.body.id, { scan_limit: { after: 0, destination: "https://example.com/x" } });
    expect(zero.status).toBe(400);

    const again = await editLink(user, created.body.id, { scan_limit: { after: 3, destination: "https://example.com/later" } });
    expect(again.body.scan_limit).toEqual({ after: 3, destination: "https://example.com/later", scans: 0 });
    const removed = await editLink(user, created.body.id, { scan_limit: null });
    expect([removed.status, removed.body.scan_limit]).toEqual([200, null]);
    for (let index = 0; index < 4; index++)
      expect((await visit(`/${created.body.slug}`)).headers.Location).toBe("https://example.com/flyer");
  });
});
