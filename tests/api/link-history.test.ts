import { db } from "@/lib/db/client";
import { doorOf } from "@/lib/links/changes";
import { applyDueRepoints } from "@/lib/links/scheduled";
import { readLink } from "@/lib/links/store";
import { blockForAbuse, setStatus } from "@/lib/resolution/store";
import { runWebhookDeliveries } from "@/lib/webhooks/worker";
import { describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser } from "../support/api";
import { heardInvalidations } from "../support/invalidations";
import { linkEditWorld, listenTo } from "../support/link-edit-world";
import { connectApp } from "../support/oauth";
import { visit } from "../support/visits";

const world = linkEditWorld();
const invalidations = heardInvalidations();

async function historyOf(id: string, options: { token: string; headers?: Record<string, string> }, query = "") {
  const response = await call("GET", `/api/links/${id}/history${query}`, options);
  expect(response.status, response.text).toBe(200);
  return response.body as {
    entries: {
      at: number;
      change: string;
      via: string;
      by: {
        kind: string;
        email: string | null;
        user_id: string | null;
        api_key_id: string | null;
        app: { client_id: string; name: string; grant_id: string } | null;
      };
      changed: string[];
      before: { destination: string; archived_at: number | null; status: number; tags: string[] } | null;
      after: {
        destination: string;
        archived_at: number | null;
        status: number;
        title: string | null;
        password_protected: boolean;
        tags: string[];
      };
    }[];
    next_cursor: string | null;
  };
}

describe("a link's history", () => {
  it("names who made each change, through which door, with the link before and after", async () => {
    const owner = await newUser("history-owner");
    const alice = await newUser("history-alice");
    const bob = await newUser("history-bob");
    const asAlice = await joinWorkspace(alice, owner.workspaceId, "admin");
    const asBob = await joinWorkspace(bob, owner.workspaceId, "admin");

    const created = await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/first" } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    world.now += 60_000;
    const repointed = await call("PATCH", `/api/links/${id}`, {
      ...asAlice,
      body: { destination: "https://example.com/second" },
    });
    expect(repointed.status).toBe(200);
    world.now += 60_000;
    expect((await call("DELETE", `/api/links/${id}`, asBob)).status).toBe(200);

    // Archived, it keeps its history, and any member of the workspace reads it.
    const { entries } = await historyOf(id, asBob);
    expect(entries.map((entry) => [entry.change, entry.via, entry.by.email])).toEqual([
      ["archived", "session_token", bob.email],
      ["edited", "session_token", alice.email],
      ["created", "session_token", owner.email],
    ]);
    expect(entries.map((entry) => entry.at)).toEqual([world.now, world.now - 60_000, world.now - 120_000]);
    const [archived, edited, made] = entries;
    expect(edited!.changed).toEqual(["destination"]);
    expect(edited!.before!.destination).toBe("https://example.com/first");
    expect(edited!.after.destination).toBe("https://example.com/second");
    expect(archived!.changed).toEqual(["archived_at"]);
    expect(archived!.before!.archived_at).toBeNull();
    expect(archived!.after.archived_at).toBe(world.now);
    expect(made!.before).toBeNull();
    expect(made!.by).toMatchObject({ kind: "member", user_id: owner.userId });
  });

  it("records the API key, bulk creation, the service and the operator as the doors they are", async () => {
    const owner = await newUser("history-doors");
    const apiKey = (await call("POST", "/api/billing/claim", { token: owner.token })).body.api_key as string;
    const byKey = await call("POST", "/api/links", { token: apiKey, body: { destination: "https://example.com/by-key" } });
    const bulk = await call("POST", "/api/links/bulk", {
      token: owner.token,
      body: { links: [{ destination: "https://example.com/by-bulk" }] },
    });
    expect([byKey.status, bulk.status]).toEqual([201, 200]);
    const [keyEntry] = (await historyOf(byKey.body.id, { token: owner.token })).entries;
    expect(keyEntry).toMatchObject({ change: "created", via: "api_key", by: { kind: "api_key", email: null } });
    expect(keyEntry!.by.api_key_id).toMatch(/^key_/);
    const bulkId = bulk.body.results[0].link.id as string;
    expect((await historyOf(bulkId, { token: owner.token })).entries[0]).toMatchObject({ via: "bulk" });

    await setStatus(bulkId, 0, null);
    await blockForAbuse(bulkId, "listed (test: phishing)");
    const at = world.now + 60_000;
    const scheduled = await call("PATCH", `/api/links/${byKey.body.id}`, {
      token: owner.token,
      body: { schedule: [{ at, destination: "https://example.com/later" }] },
    });
    expect(scheduled.status).toBe(200);
    world.now = at;
    expect(await applyDueRepoints()).toEqual({ applied: 1 });

    const statuses = (await historyOf(bulkId, { token: owner.token })).entries.map((entry) => [entry.via, entry.after.status]);
    expect(statuses).toEqual([
      ["service", 2],
      ["operator", 0],
      ["bulk", 1],
    ]);
    const [applied] = (await historyOf(byKey.body.id, { token: owner.token })).entries;
    expect(applied).toMatchObject({ change: "repoint_applied", via: "service", by: { kind: "service" } });
    expect(applied!.after.destination).toBe("https://example.com/later");
  });

  it("records a tag renamed or deleted from the tag's side on every link carrying it, and announces each as link.updated", async () => {
    // Before the fix a rename or delete of a tag changed the tags of every link carrying it and wrote no history row.
    const owner = await newUser("history-tags");
    const admin = await newUser("history-tags-admin");
    const asAdmin = await joinWorkspace(admin, owner.workspaceId, "admin");
    const apiKey = (await call("POST", "/api/billing/claim", { token: owner.token })).body.api_key as string;
    await listenTo(world, owner, ["link.updated"]);
    const make = async (body: Record<string, unknown>) => {
      const made = await call("POST", "/api/links", { token: owner.token, body });
      expect(made.status, made.text).toBe(201);
      return made.body as { id: string; slug: string };
    };
    const menu = await make({ destination: "https://example.com/menu", tags: ["menus", "print"] });
    const card = await make({ destination: "https://example.com/card", tags: ["Menus"] });
    const other = await make({ destination: "https://example.com/other", tags: ["print"] });
    const tags = (await call("GET", "/api/tags", { token: owner.token })).body.tags as { id: string; name: string }[];
    const menus = tags.find((tag) => tag.name === "menus")!;
    invalidations.heard = [];

    world.now += 60_000;
    const renamed = await call("PATCH", `/api/tags/${menus.id}`, { token: apiKey, body: { name: "Menu cards" } });
    expect(renamed.status, renamed.text).toBe(200);
    // A colour is no part of a link: a recolour alone records and announces nothing.
    world.now += 60_000;
    expect((await call("PATCH", `/api/tags/${menus.id}`, { ...asAdmin, body: { color: "red" } })).status).toBe(200);
    world.now += 60_000;
    expect((await call("DELETE", `/api/tags/${menus.id}`, asAdmin)).status).toBe(204);

    const [menuEntries, cardEntries, otherEntries] = [
      (await historyOf(menu.id, { token: owner.token })).entries,
      (await historyOf(card.id, { token: owner.token })).entries,
      (await historyOf(other.id, { token: owner.token })).entries,
    ];
    const told = (entries: typeof menuEntries) =>
      entries.map((entry) => [
        entry.change,
        entry.via,
        entry.by.kind,
        entry.changed,
        entry.before?.tags ?? null,
        entry.after.tags,
      ]);
    expect(told(menuEntries)).toEqual([
      ["edited", "session_token", "member", ["tags"], ["Menu cards", "print"], ["print"]],
      ["edited", "api_key", "api_key", ["tags"], ["menus", "print"], ["Menu cards", "print"]],
      ["created", "session_token", "member", expect.any(Array), null, ["menus", "print"]],
    ]);
    expect(told(cardEntries)).toEqual([
      ["edited", "session_token", "member", ["tags"], ["Menu cards"], []],
      ["edited", "api_key", "api_key", ["tags"], ["menus"], ["Menu cards"]],
      ["created", "session_token", "member", expect.any(Array), null, ["menus"]],
    ]);
    expect(menuEntries[0]!.by.email).toBe(admin.email);
    expect(menuEntries.slice(0, 2).map((entry) => entry.at)).toEqual([world.now, world.now - 120_000]);
    // A link without the tag is untouched.
    expect(otherEntries.map((entry) => entry.change)).toEqual(["created"]);

    // As a PATCH of a link's tags does: link.updated for each link, and each link's cached copy dropped everywhere.
    while ((await runWebhookDeliveries()).attempted > 0);
    expect(world.receiver.unverified).toBe(0);
    const updated = world.receiver.received.map((message) => [message.type, message.data.id, message.data.tags]);
    expect(updated).toHaveLength(4);
    expect(updated).toEqual(
      expect.arrayContaining([
        ["link.updated", menu.id, ["Menu cards", "print"]],
        ["link.updated", card.id, ["Menu cards"]],
        ["link.updated", menu.id, ["print"]],
        ["link.updated", card.id, []],
      ]),
    );
    const announced = (slug: string) => invalidations.heard.filter((heard) => heard.kind === "link" && heard.slug === slug);
    expect([announced(menu.slug).length, announced(card.slug).length, announced(other.slug).length]).toEqual([2, 2, 0]);
  });

  it("writes no history for a tag rename refused by another tag's name, and takes nothing off a link", async () => {
    const owner = await newUser("history-tags-refused");
    const made = await call("POST", "/api/links", {
      token: owner.token,
      body: { destination: "https://example.com/refused", tags: ["first", "second"] },
    });
    const tags = (await call("GET", "/api/tags", { token: owner.token })).body.tags as { id: string; name: string }[];
    const clash = await call("PATCH", `/api/tags/${tags[0]!.id}`, { token: owner.token, body: { name: "SECOND" } });
    expect([clash.status, clash.body.error]).toEqual([409, expect.stringContaining('already has a tag named "SECOND"')]);
    const { entries } = await historyOf(made.body.id, { token: owner.token });
    expect(entries.map((entry) => entry.change)).toEqual(["created"]);
    expect((await call("GET", `/api/links/${made.body.id}`, { token: owner.token })).body.tags).toEqual(["first", "second"]);
  });

  it("records a password set, replaced and removed, never the password", async () => {
    const owner = await newUser("history-password");
    const id = (await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/locked" } }))
      .body.id;
    for (const password of ["first secret 1", "second secret 2", null])
      expect((await call("PATCH", `/api/links/${id}`, { token: owner.token, body: { password } })).status).toBe(200);
    const { entries } = await historyOf(id, { token: owner.token });
    expect(entries.map((entry) => [entry.changed, entry.after.password_protected])).toEqual([
      [["password_protected", "password"], false],
      [["password"], true],
      [["password_protected", "password"], true],
      [expect.not.arrayContaining(["password"]), false],
    ]);
    const stored = JSON.stringify(await db().linkHistory.findMany({ where: { linkId: id } }), (_key, value) =>
      typeof value === "bigint" ? String(value) : value,
    );
    expect(stored).not.toMatch(/secret|scrypt/);
  });

  it("records a scan limit set, and reached by the visit that made its last scan, as the service", async () => {
    const owner = await newUser("history-scan-limit");
    const made = await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/coffee" } });
    const limit = { after: 2, destination: "https://example.com/sold-out" };
    expect((await call("PATCH", `/api/links/${made.body.id}`, { token: owner.token, body: { scan_limit: limit } })).status).toBe(
      200,
    );
    for (let scan = 0; scan < 3; scan++) await visit(`/${made.body.slug}`);
    const { entries } = await historyOf(made.body.id, { token: owner.token });
    expect(entries.map((entry) => [entry.change, entry.via, entry.changed])).toEqual([
      ["scan_limit_reached", "service", ["destination", "scan_limit"]],
      ["edited", "session_token", ["scan_limit"]],
      ["created", "session_token", expect.arrayContaining(["destination", "scan_limit"])],
    ]);
    expect(entries[0]!.after.destination).toBe(limit.destination);
  });

  it("pages newest first and refuses a cursor it did not write", async () => {
    const owner = await newUser("history-pages");
    const id = (await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/p" } })).body.id;
    for (const title of ["One", "Two", "Three", "Four"]) {
      world.now += 1_000;
      expect((await call("PATCH", `/api/links/${id}`, { token: owner.token, body: { title } })).status).toBe(200);
    }
    const first = await historyOf(id, { token: owner.token }, "?limit=2");
    expect(first.entries.map((entry) => entry.after.title)).toEqual(["Four", "Three"]);
    const second = await historyOf(id, { token: owner.token }, `?limit=2&cursor=${first.next_cursor}`);
    expect(second.entries.map((entry) => entry.after.title)).toEqual(["Two", "One"]);
    const last = await historyOf(id, { token: owner.token }, `?limit=2&cursor=${second.next_cursor}`);
    expect(last).toEqual({ entries: [expect.objectContaining({ change: "created" })], next_cursor: null });

    const forged = await call("GET", `/api/links/${id}/history?cursor=bm90LW91cnM`, { token: owner.token });
    expect(forged.status).toBe(400);
    expect(forged.body.error).toMatch(/cursor/);
    const stranger = await newUser("history-stranger");
    expect((await call("GET", `/api/links/${id}/history`, { token: stranger.token })).status).toBe(404);
  });

  it("records an OAuth app's change as the app for its person, and shows the address only to callers who may read members", async () => {
    // Before the fix the change read as via session_token by the member, and an app with links:read alone got the address.
    const owner = await newUser("history-oauth");
    const writer = await connectApp(owner, owner.workspaceId, ["links:read", "links:write"]);
    const made = await call("POST", "/api/links", {
      token: writer.tokens.access_token,
      body: { destination: "https://example.com/by-an-app" },
    });
    expect(made.status, made.text).toBe(201);
    const grant = await db().oAuthGrant.findFirstOrThrow({ where: { clientId: writer.started.clientId } });
    const byApp = {
      kind: "app",
      user_id: owner.userId,
      app: { client_id: writer.started.clientId, name: "Test agent", grant_id: grant.id },
    };
    const [asOwner] = (await historyOf(made.body.id, { token: owner.token })).entries;
    expect(asOwner).toMatchObject({ change: "created", via: "oauth", by: { ...byApp, email: owner.email, api_key_id: null } });
    const reader = await connectApp(owner, owner.workspaceId, ["links:read"]);
    const [asReader] = (await historyOf(made.body.id, { token: reader.tokens.access_token })).entries;
    expect(asReader).toMatchObject({ via: "oauth", by: { ...byApp, email: null } });
    const peopleReader = await connectApp(owner, owner.workspaceId, ["links:read", "members:read"]);
    const [asPeopleReader] = (await historyOf(made.body.id, { token: peopleReader.tokens.access_token })).entries;
    expect(asPeopleReader!.by.email).toBe(owner.email);
    const ownEdit = await call("PATCH", `/api/links/${made.body.id}`, { token: owner.token, body: { title: "Mine" } });
    expect(ownEdit.status, ownEdit.text).toBe(200);
    const [memberEntry] = (await historyOf(made.body.id, { token: reader.tokens.access_token })).entries;
    expect(memberEntry).toMatchObject({
      via: "session_token",
      by: { kind: "member", user_id: owner.userId, email: null, app: null },
    });
  });

  it("is append-only in the database: no statement changes or deletes a row", async () => {
    const owner = await newUser("history-append-only");
    const id = (await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/kept" } })).body
      .id;
    await expect(db().$executeRaw`UPDATE link_history SET via = 'forged' WHERE link_id = ${id}`).rejects.toThrow(/append-only/);
    await expect(db().$executeRaw`DELETE FROM link_history WHERE link_id = ${id}`).rejects.toThrow(/append-only/);
    expect(await db().linkHistory.count({ where: { linkId: id } })).toBe(1);
  });

  it("tells the doors apart by the actor first, then by the route being served", async () => {
    const link = await (async () => {
      const owner = await newUser("history-door-table");
      const id = (await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/t" } })).body
        .id;
      return readLink(id);
    })();
    const member = { kind: "session" as const, userId: "usr_x", workspaceId: link.workspaceId, role: "owner" as const };
    const key = { kind: "api_key" as const, apiKeyId: "key_x", workspaceId: link.workspaceId };
    const imported = { ...link, importedFrom: "bit.ly/abc" };
    expect(doorOf({ kind: "edited", link, by: member }, undefined)).toBe("dashboard");
    expect(doorOf({ kind: "edited", link, by: member }, "/api/links/{id}")).toBe("session_token");
    const app = { ...member, grant: { id: "ogr_x", clientId: "ocl_x", scopes: ["links:write" as const] } };
    expect(doorOf({ kind: "edited", link, by: app }, "/api/links/{id}")).toBe("oauth");
    expect(doorOf({ kind: "edited", link, by: app }, "/api/mcp")).toBe("mcp");
    expect(doorOf({ kind: "edited", link, by: key }, "/api/mcp")).toBe("mcp");
    expect(doorOf({ kind: "created", link: imported, by: member }, "/api/imports")).toBe("import");
    expect(doorOf({ kind: "edited", link: imported, by: member }, "/api/links/{id}")).toBe("session_token");
    expect(doorOf({ kind: "created", link, by: { kind: "machine_payment", payerDid: "did:pkh:x" } }, "/api/links")).toBe(
      "machine_payment",
    );
  });
});
