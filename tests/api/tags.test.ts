import { db } from "@/lib/db/client";
import { describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";

const as = (user: Pick<TestUser, "token">) => ({ token: user.token });
const createLink = (user: TestUser, body: unknown) => call("POST", "/api/links", { ...as(user), body });
const createTag = (user: TestUser, body: unknown) => call("POST", "/api/tags", { ...as(user), body });
const listByTags = async (user: TestUser, ...tags: string[]) => {
  const query = tags.map((tag) => `tag=${encodeURIComponent(tag)}`).join("&");
  const response = await call("GET", `/api/links?${query}`, as(user));
  expect(response.status).toBe(200);
  return response.body.links.map((link: { slug: string }) => link.slug).sort();
};

describe("tags", () => {
  it("creates, lists, renames, recolours and deletes tags; names are unique without regard to case", async () => {
    const user = await newUser();
    const created = await createTag(user, { name: "Menus", color: "green" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^tag_/), name: "Menus", color: "green" });
    expect((await createTag(user, { name: "  posters " })).body).toMatchObject({ name: "posters", color: "blue" });

    const twin = await createTag(user, { name: "MENUS" });
    expect(twin.status).toBe(409);
    expect(twin.body.error).toMatch(/already has a tag named "MENUS"/);
    expect((await createTag(await newUser(), { name: "menus" })).status).toBe(201);

    expect((await call("GET", "/api/tags", as(user))).body.tags.map((tag: { name: string }) => tag.name)).toEqual([
      "Menus",
      "posters",
    ]);

    const renamed = await call("PATCH", `/api/tags/${created.body.id}`, {
      ...as(user),
      body: { name: "Menu cards", color: "red" },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ id: created.body.id, name: "Menu cards", color: "red" });
    const clash = await call("PATCH", `/api/tags/${created.body.id}`, { ...as(user), body: { name: "Posters" } });
    expect(clash.status).toBe(409);

    expect((await call("DELETE", `/api/tags/${created.body.id}`, as(user))).status).toBe(204);
    expect((await call("DELETE", `/api/tags/${created.body.id}`, as(user))).status).toBe(404);
  });

  it.each([
    ["an empty name", { name: "  " }, /"name"/],
    ["a name over 40 characters", { name: "x".repeat(41) }, /at most 40/],
    ["a comma in the name", { name: "a,b" }, /commas/],
    ["an unknown colour", { name: "ok", color: "mauve" }, /must be one of/],
    ["an unknown field", { name: "ok", size: 3 }, /does not accept: size/],
  ])("refuses %s with 400", async (_label, body, message) => {
    const response = await createTag(await newUser(), body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
  });

  it("gives exactly one tag to concurrent creates of one name in any case", async () => {
    const user = await newUser();
    const responses = await Promise.all(["Team", "team", "TEAM", "tEaM", "Team"].map((name) => createTag(user, { name })));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 409)).toHaveLength(4);
    expect(await db().tag.count({ where: { workspaceId: user.workspaceId } })).toBe(1);
  });

  it("refuses a viewer's create and a member's rename (403)", async () => {
    const owner = await newUser();
    const tag = await createTag(owner, { name: "spring" });
    const viewer = await joinWorkspace(await newUser(), owner.workspaceId, "viewer");
    const member = await joinWorkspace(await newUser(), owner.workspaceId, "member");
    expect((await call("POST", "/api/tags", { ...viewer, body: { name: "x" } })).status).toBe(403);
    expect((await call("GET", "/api/tags", viewer)).body.tags).toHaveLength(1);
    expect((await call("POST", "/api/tags", { ...member, body: { name: "x" } })).status).toBe(201);
    expect((await call("PATCH", `/api/tags/${tag.body.id}`, { ...member, body: { color: "red" } })).status).toBe(403);
  });
});

describe("links with titles and tags", () => {
  it("creates a link with a title and tags, creating the tags it names and reusing existing ones whatever their case", async () => {
    const user = await newUser();
    await createTag(user, { name: "Print", color: "purple" });
    const response = await createLink(user, {
      destination: "https://example.com/spring",
      title: "  Spring menu ",
      tags: ["print", "Restaurant", "restaurant"],
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ title: "Spring menu", tags: ["Print", "Restaurant"], imported_from: null });
    expect(await db().tag.count({ where: { workspaceId: user.workspaceId } })).toBe(2);
    expect((await call("GET", `/api/links/${response.body.id}`, as(user))).body).toMatchObject({
      title: "Spring menu",
      tags: ["Print", "Restaurant"],
    });
    const [listed] = (await call("GET", "/api/links", as(user))).body.links;
    expect(listed).toMatchObject({ id: response.body.id, title: "Spring menu", tags: ["Print", "Restaurant"] });
  });

  it.each([
    ["a title over 200 characters", { title: "x".repeat(201) }, /"title"/],
    ["eleven tags", { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, /at most 10 tags/],
    ["a tag that is not a string", { tags: [3] }, /"tags/],
  ])("refuses %s with 400 and writes nothing", async (_label, extra, message) => {
    const user = await newUser();
    const response = await createLink(user, { destination: "https://example.com/x", ...extra });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("replaces the tag set and the title with PATCH, and repoints in the same PATCH", async () => {
    const user = await newUser();
    const link = (await createLink(user, { destination: "https://example.com/a", tags: ["one", "two"], title: "A" })).body;
    const retagged = await call("PATCH", `/api/links/${link.id}`, { ...as(user), body: { tags: ["two", "three"] } });
    expect(retagged.status).toBe(200);
    expect(retagged.body).toMatchObject({ tags: ["three", "two"], title: "A", destination: "https://example.com/a" });

    const both = await call("PATCH", `/api/links/${link.id}`, {
      ...as(user),
      body: { destination: "https://example.com/b", title: null, tags: [] },
    });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ destination: "https://example.com/b", title: null, tags: [], status: 1 });

    const empty = await call("PATCH", `/api/links/${link.id}`, { ...as(user), body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatch(/Send destination, title, tags/);
  });

  it("changes nothing when a PATCH's new destination is refused, tags included", async () => {
    const user = await newUser();
    const link = (await createLink(user, { destination: "https://example.com/a", tags: ["keep"] })).body;
    const refused = await call("PATCH", `/api/links/${link.id}`, {
      ...as(user),
      body: { destination: "http://10.0.0.1/", tags: ["other"] },
    });
    expect(refused.status).toBe(422);
    expect((await call("GET", `/api/links/${link.id}`, as(user))).body).toMatchObject({
      tags: ["keep"],
      destination: "https://example.com/a",
    });
  });

  it("filters the list by tag, several tags meaning all of them, without regard to case", async () => {
    const user = await newUser();
    await createLink(user, { destination: "https://example.com/1", slug: "just-red", tags: ["red"] });
    await createLink(user, { destination: "https://example.com/2", slug: "red-and-navy", tags: ["Red", "blue"] });
    await createLink(user, { destination: "https://example.com/3", slug: "untagged" });
    expect(await listByTags(user, "red")).toEqual(["just-red", "red-and-navy"]);
    expect(await listByTags(user, "RED", "blue")).toEqual(["red-and-navy"]);
    expect(await listByTags(user, "red", "green")).toEqual([]);
    expect(await listByTags(user)).toEqual(["just-red", "red-and-navy", "untagged"]);
    const bad = await call("GET", "/api/links?tag=", as(user));
    expect(bad.status).toBe(400);
  });

  it("takes a deleted tag off its links and keeps the links", async () => {
    const user = await newUser();
    const link = (await createLink(user, { destination: "https://example.com/d", tags: ["doomed", "kept"] })).body;
    const [doomed] = (await call("GET", "/api/tags", as(user))).body.tags;
    expect(doomed.name).toBe("doomed");
    expect((await call("DELETE", `/api/tags/${doomed.id}`, as(user))).status).toBe(204);
    const after = await call("GET", `/api/links/${link.id}`, as(user));
    expect(after.status).toBe(200);
    expect(after.body.tags).toEqual(["kept"]);
  });
});
