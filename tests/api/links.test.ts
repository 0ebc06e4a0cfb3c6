import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { isReserved, SLUG_ALPHABET } from "@/lib/links/slugs";
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";

const create = (user: Pick<TestUser, "token">, body: unknown) => call("POST", "/api/links", { token: user.token, body });

describe("POST /api/links", () => {
  it("creates a quarantined link with an allocated slug from the unambiguous alphabet", async () => {
    const user = await newUser();
    const response = await create(user, { destination: "https://Example.COM" });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^lnk_/),
      slug: expect.stringMatching(new RegExp(`^[${SLUG_ALPHABET}]{7}$`)),
      destination: "https://example.com/",
      host: null,
      status: 1,
      short_url: `http://s.test.example/${response.body.slug}`,
      created_at: expect.any(Number),
      archived_at: null,
      title: null,
      tags: [],
      imported_from: null,
      original_created_at: null,
      rules: [],
      schedule: [],
      scan_limit: null,
      password_protected: false,
      preview: null,
      preview_count: 0,
    });
    expect(response.body.slug).not.toMatch(/[01lIO]/);
  });

  it("returns the existing link (200, same id) for the same normalised destination without a custom slug", async () => {
    const user = await newUser();
    const first = await create(user, { destination: "https://example.com/menu" });
    const again = await create(user, { destination: "HTTPS://EXAMPLE.com:443/menu" });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const custom = await create(user, { destination: "https://example.com/menu", slug: "menu-spring" });
    expect(custom.status).toBe(201);
    expect(custom.body.id).not.toBe(first.body.id);
    const otherWorkspace = await create(await newUser(), { destination: "https://example.com/menu" });
    expect(otherWorkspace.status).toBe(201);
  });

  it("gives one link to concurrent creates of the same destination, and distinct slugs to distinct ones", async () => {
    const user = await newUser();
    const same = await Promise.all(
      Array.from({ length: 15 }, () => create(user, { destination: "https://example.com/popular" })),
    );
    expect(new Set(same.map((response) => response.body.id)).size).toBe(1);
    expect(same.filter((response) => response.status === 201)).toHaveLength(1);

    const distinct = await Promise.all(
      Array.from({ length: 40 }, (_, i) => create(user, { destination: `https://example.com/item/${i}` })),
    );
    expect(distinct.every((response) => response.status === 201)).toBe(true);
    expect(new Set(distinct.map((response) => response.body.slug)).size).toBe(40);
  });

  it("honours a custom slug, and answers 409 when it, or one differing from it only by case, is taken", async () => {
    const user = await newUser();
    expect((await create(user, { destination: "https://example.com/a", slug: "Spring_Menu" })).status).toBe(201);
    const twin = await create(user, { destination: "https://example.com/b", slug: "spring_menu" });
    expect([twin.status, twin.body.error]).toEqual([409, expect.stringMatching(/differs only in case from "Spring_Menu"/)]);
    const taken = await create(await newUser(), { destination: "https://example.com/c", slug: "Spring_Menu" });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatch(/already taken/);
  });

  it("gives exactly one of several concurrent claims on one custom slug", async () => {
    const user = await newUser();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(user, { destination: `https://example.com/${i}`, slug: "contested" })),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 409)).toHaveLength(9);
  });

  it.each([
    ["an unknown field", { destination: "https://example.com", colour: "x" }, /does not accept: colour/],
    ["a missing destination", {}, /"destination"/],
    ["an empty destination", { destination: "" }, /"destination"/],
    ["a non-string destination", { destination: 42 }, /"destination"/],
    ["a slug with an ambiguous character", { destination: "https://example.com", slug: "hello" }, /"slug"/],
    ["a slug that is too short", { destination: "https://example.com", slug: "ab" }, /"slug"/],
    ["a reserved slug", { destination: "https://example.com", slug: "api" }, /reserved/],
    ["a non-http scheme", { destination: "ftp://example.com/file" }, /./],
    ["a destination that is not a URL", { destination: "not a url" }, /./],
    ["a JSON array", [], /./],
  ])("refuses %s with 400", async (_label, body, message) => {
    const response = await create(await newUser(), body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
  });

  it("refuses malformed JSON (400) and an oversized body (413)", async () => {
    const user = await newUser();
    const malformed = await call("POST", "/api/links", { token: user.token, rawBody: '{"destination":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/not valid JSON/);
    const huge = await call("POST", "/api/links", {
      token: user.token,
      rawBody: JSON.stringify({ destination: `https://example.com/${"a".repeat(20_000)}` }),
    });
    expect(huge.status).toBe(413);
  });

  it.each([
    ["a private address", "http://10.1.2.3/admin"],
    ["loopback in decimal", "http://2130706433/"],
    ["the cloud metadata endpoint", "http://169.254.169.254/latest/meta-data/"],
    ["IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/"],
    ["localhost", "http://localhost:8080/"],
    ["userinfo", "https://bank.example.com@evil.example.com/"],
    ["a name that resolves to a private address", `https://${TEST_ZONE.privateName}/`],
    ["a name with one private answer among public ones", `https://${TEST_ZONE.mixedName}/`],
    ["a name that resolves to IPv6 loopback", `https://${TEST_ZONE.loopbackV6Name}/`],
    ["Google's Safe Browsing malware test URL", "http://malware.testing.google.test/testing/malware/"],
  ])("refuses %s with 422 and writes nothing", async (_label, destination) => {
    const user = await newUser();
    const response = await create(user, { destination });
    expect(response.status).toBe(422);
    expect(response.body.error).toEqual(expect.any(String));
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("accepts a name that does not resolve: it stays quarantined and is checked again later", async () => {
    const response = await create(await newUser(), { destination: `https://${TEST_ZONE.missingName}/promo` });
    expect(response.status).toBe(201);
    expect(response.body.status).toBe(1);
  });

  it("creates on a verified custom domain of the workspace only (another's: 404, unverified: 409)", async () => {
    const user = await newUser();
    const verified = await db().domain.create({
      data: {
        id: newId("dom"),
        workspaceId: user.workspaceId,
        hostname: `go-${user.userId.toLowerCase()}.example.org`,
        verifiedAt: new Date(),
      },
    });
    const pending = await db().domain.create({
      data: { id: newId("dom"), workspaceId: user.workspaceId, hostname: `pending-${user.userId.toLowerCase()}.example.org` },
    });
    const slug = `menu-${randomString(SLUG_ALPHABET, 6)}`;
    const onDomain = await create(user, { destination: "https://example.com/", domain_id: verified.id, slug });
    expect(onDomain.status).toBe(201);
    expect(onDomain.body).toMatchObject({ host: verified.hostname, short_url: `https://${verified.hostname}/${slug}` });
    expect((await create(user, { destination: "https://example.com/", slug })).status).toBe(201);
    expect((await create(user, { destination: "https://example.com/", domain_id: pending.id })).status).toBe(409);
    expect((await create(await newUser(), { destination: "https://example.com/", domain_id: verified.id })).status).toBe(404);
  });

  it("lets a workspace member create links that belong to the workspace", async () => {
    const owner = await newUser();
    const asMember = await joinWorkspace(await newUser(), owner.workspaceId, "member");
    const response = await call("POST", "/api/links", { ...asMember, body: { destination: "https://example.com/team" } });
    expect(response.status).toBe(201);
    const listed = await call("GET", "/api/links", { token: owner.token });
    expect(listed.body.links.map((link: { id: string }) => link.id)).toContain(response.body.id);
  });
});

describe("GET /api/links", () => {
  it("lists live links most recent first, with epoch-millisecond created_at, and never another workspace's", async () => {
    const user = await newUser();
    const ids: string[] = [];
    for (const path of ["one", "two", "three"])
      ids.push((await create(user, { destination: `https://example.com/${path}` })).body.id);
    await create(await newUser(), { destination: "https://example.com/foreign" });
    const response = await call("GET", "/api/links", { token: user.token });
    expect(response.status).toBe(200);
    expect(response.body.links.map((link: { id: string }) => link.id)).toEqual(ids.reverse());
    expect(Object.keys(response.body.links[0]).sort()).toEqual([
      "created_at",
      "destination",
      "host",
      "id",
      "slug",
      "status",
      "tags",
      "title",
    ]);
    expect(response.body.links[0].created_at).toBeGreaterThan(Date.UTC(2026, 0, 1));
    expect(response.body.next_cursor).toBeNull();
  });

  it("returns at most 200 links, and pages through the rest with next_cursor", async () => {
    const user = await newUser();
    await db().link.createMany({
      data: Array.from({ length: 205 }, (_, i) => ({
        id: newId("lnk"),
        workspaceId: user.workspaceId,
        slug: `bulk-${user.userId}-${i}`,
        reusable: false,
        destination: `https://example.com/${i}`,
        createdAt: new Date(Date.UTC(2026, 5, 1, 0, 0, i)),
      })),
    });
    const first = await call("GET", "/api/links", { token: user.token });
    expect(first.body.links).toHaveLength(200);
    expect(first.body.links[0].destination).toBe("https://example.com/204");
    const second = await call("GET", `/api/links?cursor=${first.body.next_cursor}`, { token: user.token });
    expect(second.body.links.map((link: { destination: string }) => link.destination)).toEqual(
      [4, 3, 2, 1, 0].map((i) => `https://example.com/${i}`),
    );
    expect(second.body.next_cursor).toBeNull();
    const small = await call("GET", "/api/links?limit=2", { token: user.token });
    expect(small.body.links).toHaveLength(2);
    expect((await call("GET", "/api/links?limit=201", { token: user.token })).status).toBe(400);
    expect((await call("GET", "/api/links?sort=asc", { token: user.token })).status).toBe(400);
  });
});

describe("repoint and archive", () => {
  it("repoints a link (PATCH): same slug, new normalised destination, back in quarantine", async () => {
    const user = await newUser();
    const link = (await create(user, { destination: "https://example.com/old" })).body;
    await db().link.update({ where: { id: link.id }, data: { status: 0 } });
    const response = await call("PATCH", `/api/links/${link.id}`, {
      token: user.token,
      body: { destination: "https://EXAMPLE.com/new" },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: link.id, slug: link.slug, destination: "https://example.com/new", status: 1 });
    const fresh = await create(user, { destination: "https://example.com/old" });
    expect(fresh.status).toBe(201);
    expect(fresh.body.id).not.toBe(link.id);
  });

  it("applies the destination rules to a repoint", async () => {
    const user = await newUser();
    const link = (await create(user, { destination: "https://example.com/" })).body;
    const response = await call("PATCH", `/api/links/${link.id}`, {
      token: user.token,
      body: { destination: "http://192.168.0.1/" },
    });
    expect(response.status).toBe(422);
    expect((await call("PATCH", `/api/links/${link.id}`, { token: user.token, body: { slug: "new" } })).status).toBe(400);
  });

  it("archives a link (DELETE): hidden from the list, still readable, idempotent", async () => {
    const user = await newUser();
    const link = (await create(user, { destination: "https://example.com/archive-me" })).body;
    const archived = await call("DELETE", `/api/links/${link.id}`, { token: user.token });
    expect(archived.status).toBe(200);
    expect(archived.body.archived_at).toEqual(expect.any(Number));
    expect((await call("GET", "/api/links", { token: user.token })).body.links).toHaveLength(0);
    const again = await call("DELETE", `/api/links/${link.id}`, { token: user.token });
    expect(again.body.archived_at).toBe(archived.body.archived_at);
    expect((await call("GET", `/api/links/${link.id}`, { token: user.token })).body.archived_at).toBe(archived.body.archived_at);
    const recreated = await create(user, { destination: "https://example.com/archive-me" });
    expect(recreated.status).toBe(201);
  });

  it("restores an archived link (POST restore): back in the list, idempotent, a write", async () => {
    const user = await newUser();
    const link = (await create(user, { destination: "https://example.com/restore-me" })).body;
    await call("DELETE", `/api/links/${link.id}`, { token: user.token });
    const restored = await call("POST", `/api/links/${link.id}/restore`, { token: user.token });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: link.id, slug: link.slug, destination: link.destination, archived_at: null });
    expect((await call("GET", "/api/links", { token: user.token })).body.links.map((row: { id: string }) => row.id)).toEqual([
      link.id,
    ]);
    const again = await call("POST", `/api/links/${link.id}/restore`, { token: user.token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(restored.body);
    // Still the link a create without slug returns for its destination.
    const duplicate = await create(user, { destination: "https://example.com/restore-me" });
    expect(duplicate.status).toBe(200);
    expect(duplicate.body.id).toBe(link.id);
    expect((await call("POST", "/api/links/lnk_00000000000000000000/restore", { token: user.token })).status).toBe(404);
  });

  it("restores a link whose destination got a new link meanwhile, which stays the one a create returns", async () => {
    const user = await newUser();
    const archived = (await create(user, { destination: "https://example.com/twice" })).body;
    await call("DELETE", `/api/links/${archived.id}`, { token: user.token });
    const replacement = (await create(user, { destination: "https://example.com/twice" })).body;
    expect(replacement.id).not.toBe(archived.id);
    const restored = await call("POST", `/api/links/${archived.id}/restore`, { token: user.token });
    expect(restored.status).toBe(200);
    expect(restored.body.archived_at).toBeNull();
    const again = await create(user, { destination: "https://example.com/twice" });
    expect([again.status, again.body.id]).toEqual([200, replacement.id]);
    expect((await call("GET", "/api/links", { token: user.token })).body.links).toHaveLength(2);
  });

  it("hides another workspace's link behind 404 and stops members editing others' links (403)", async () => {
    const owner = await newUser();
    const link = (await create(owner, { destination: "https://example.com/owned" })).body;
    const stranger = await newUser();
    for (const method of ["GET", "PATCH", "DELETE"]) {
      const response = await call(method, `/api/links/${link.id}`, {
        token: stranger.token,
        body: method === "PATCH" ? { destination: "https://example.org/" } : undefined,
      });
      expect(response.status).toBe(404);
    }
    const asMember = await joinWorkspace(await newUser(), owner.workspaceId, "member");
    expect((await call("DELETE", `/api/links/${link.id}`, asMember)).status).toBe(403);
    const own = (await call("POST", "/api/links", { ...asMember, body: { destination: "https://example.com/mine" } })).body;
    expect(
      (await call("PATCH", `/api/links/${own.id}`, { ...asMember, body: { destination: "https://example.com/mine2" } })).status,
    ).toBe(200);
  });

  it("lets an API key list and repoint the workspace's links", async () => {
    const owner = await newUser();
    const apiKey = (await call("POST", "/api/billing/claim", { token: owner.token })).body.api_key;
    const link = (await create({ token: apiKey }, { destination: "https://example.com/by-key" })).body;
    expect((await call("GET", "/api/links", { token: apiKey })).body.links[0].id).toBe(link.id);
    const repointed = await call("PATCH", `/api/links/${link.id}`, {
      token: apiKey,
      body: { destination: "https://example.com/by-key-2" },
    });
    expect(repointed.status).toBe(200);
  });

  it("refuses to repoint a link blocked for abuse", async () => {
    const user = await newUser();
    const link = (await create(user, { destination: "https://example.com/" })).body;
    await db().link.update({ where: { id: link.id }, data: { status: 2 } });
    expect(
      (await call("PATCH", `/api/links/${link.id}`, { token: user.token, body: { destination: "https://example.org/" } })).status,
    ).toBe(409);
  });
});

describe("unknown API routes", () => {
  it("answer 404 with a JSON error, never an HTML page", async () => {
    const response = await call("GET", "/api/nothing/here");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(response.body.error).toMatch(/no API operation/);
  });
});

describe("reserved slugs", () => {
  it("cover every top-level path the application serves, so no slug can shadow a page", () => {
    const topLevel = readdirSync("app", { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !/^[([_]/.test(entry.name))
      .map((entry) => entry.name);
    expect(topLevel.length).toBeGreaterThan(3);
    for (const path of topLevel) expect([path, isReserved(path)]).toEqual([path, true]);
  });
});
