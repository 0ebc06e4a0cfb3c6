import { db } from "@/lib/db/client";
import { MAX_TEMPLATES } from "@/lib/utm/schemas";
import { describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";

const save = (caller: { token: string; headers?: Record<string, string> }, body: unknown) =>
  call("POST", "/api/utm-templates", { ...caller, body });
const list = (caller: { token: string; headers?: Record<string, string> }) => call("GET", "/api/utm-templates", caller);
const as = (user: TestUser) => ({ token: user.token });

describe("UTM templates", () => {
  it("saves, lists and deletes templates; names are unique in the workspace without regard to case", async () => {
    const user = await newUser();
    const saved = await save(as(user), {
      name: "  Spring posters ",
      utm_source: " poster ",
      utm_medium: "print",
      utm_campaign: "spring menu",
      utm_term: "",
    });
    expect(saved.status).toBe(201);
    expect(saved.body).toEqual({
      id: expect.stringMatching(/^utm_/),
      name: "Spring posters",
      utm_source: "poster",
      utm_medium: "print",
      utm_campaign: "spring menu",
      utm_term: null,
      utm_content: null,
      created_at: expect.any(Number),
    });
    expect((await save(as(user), { name: "Autumn flyers", utm_content: "table-tent" })).status).toBe(201);

    const twin = await save(as(user), { name: "SPRING POSTERS", utm_source: "x" });
    expect(twin.status).toBe(409);
    expect(twin.body.error).toBe(
      'This workspace already has a UTM template named "SPRING POSTERS" (names are compared without regard to case).',
    );
    // Another workspace's names are its own.
    expect((await save(as(await newUser()), { name: "Spring posters", utm_source: "x" })).status).toBe(201);

    expect((await list(as(user))).body.templates.map((template: { name: string }) => template.name)).toEqual([
      "Autumn flyers",
      "Spring posters",
    ]);

    expect((await call("DELETE", `/api/utm-templates/${saved.body.id}`, as(user))).status).toBe(204);
    const again = await call("DELETE", `/api/utm-templates/${saved.body.id}`, as(user));
    expect(again.status).toBe(404);
    expect(again.body.error).toBe("No UTM template with this id exists in this workspace.");
    expect((await call("DELETE", "/api/utm-templates/not-an-id", as(user))).status).toBe(404);
    expect((await list(as(user))).body.templates).toHaveLength(1);
  });

  it.each([
    ["no name", { utm_source: "poster" }, /"name"/],
    ["an empty name", { name: "   ", utm_source: "poster" }, /"name" is invalid: must not be empty/],
    ["a name over 60 characters", { name: "x".repeat(61), utm_source: "poster" }, /at most 60 characters/],
    [
      "no parameter at all",
      { name: "Empty" },
      /Fill in at least one of utm_source, utm_medium, utm_campaign, utm_term, utm_content/,
    ],
    ["only blank parameters", { name: "Blank", utm_source: "  ", utm_medium: "" }, /Fill in at least one of/],
    [
      "a value over 200 characters",
      { name: "Long", utm_campaign: "c".repeat(201) },
      /"utm_campaign" is invalid: must be at most 200/,
    ],
    [
      "a control character",
      { name: "Bell", utm_source: "a\u0007b" },
      /"utm_source" is invalid: may not contain control characters/,
    ],
    ["a value that is not text", { name: "Number", utm_source: 5 }, /"utm_source" is invalid: must be a string/],
    ["an unknown field", { name: "Extra", utm_source: "a", utm_id: "7" }, /does not accept: utm_id/],
  ])("refuses %s with 400 and a sentence", async (_label, body, message) => {
    const user = await newUser();
    const response = await save(as(user), body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: expect.stringMatching(message) });
    expect(await db().utmTemplate.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("keeps at most the limit per workspace, then says why with 409", async () => {
    const user = await newUser();
    await db().utmTemplate.createMany({
      data: Array.from({ length: MAX_TEMPLATES }, (_, index) => ({
        id: `utm_${String(index).padStart(20, "0")}`,
        workspaceId: user.workspaceId,
        name: `t${index}`,
        nameKey: `t${index}`,
        source: "s",
      })),
    });
    const refused = await save(as(user), { name: "One more", utm_source: "poster" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(new RegExp(`already keeps ${MAX_TEMPLATES} UTM templates`));
  });

  it("lets a member delete the templates they saved and not another's; a viewer reads only", async () => {
    const owner = await newUser();
    const member = await joinWorkspace(await newUser(), owner.workspaceId, "member");
    const viewer = await joinWorkspace(await newUser(), owner.workspaceId, "viewer");
    const theirs = await save(member, { name: "Member's", utm_source: "member" });
    expect(theirs.status).toBe(201);
    const owners = await save(as(owner), { name: "Owner's", utm_source: "owner" });

    const refused = await call("DELETE", `/api/utm-templates/${owners.body.id}`, member);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("Your role in this workspace allows deleting only the UTM templates you saved.");
    expect((await save(viewer, { name: "Viewer's", utm_source: "viewer" })).status).toBe(403);
    expect((await list(viewer)).body.templates).toHaveLength(2);
    expect((await call("DELETE", `/api/utm-templates/${theirs.body.id}`, viewer)).status).toBe(403);
    expect((await call("DELETE", `/api/utm-templates/${theirs.body.id}`, member)).status).toBe(204);
    // Another workspace's template is as unknown as a made-up id.
    const stranger = await newUser();
    expect((await call("DELETE", `/api/utm-templates/${owners.body.id}`, as(stranger))).status).toBe(404);
    expect((await call("DELETE", `/api/utm-templates/${owners.body.id}`, as(owner))).status).toBe(204);
  });
});
