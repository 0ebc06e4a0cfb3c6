import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { resetWriteLimiter } from "@/lib/http/write-limit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";

const bulk = (user: Pick<TestUser, "token">, links: unknown[]) =>
  call("POST", "/api/links/bulk", { token: user.token, body: { links } });

afterEach(async () => {
  vi.unstubAllEnvs();
  resetConfig();
  await resetWriteLimiter();
});

describe("POST /api/links/bulk", () => {
  it("gives each item the status and sentence POST /api/links would, and creates only the good ones", async () => {
    const user = await newUser();
    await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/x", slug: "taken-one" } });
    const response = await bulk(user, [
      { destination: "https://example.com/new", tags: ["bulk"], title: "New" },
      { destination: "https://EXAMPLE.com/new" },
      { destination: "ftp://example.com/" },
      { destination: "https://example.com/y", slug: "taken-one" },
      { destination: "http://10.0.0.1/" },
      { destination: "https://example.com/z", colour: "red" },
      "not an object",
    ]);
    expect(response.status).toBe(200);
    const results = response.body.results;
    expect(results.map((result: { status: number }) => result.status)).toEqual([201, 200, 400, 409, 422, 400, 400]);
    expect(results[0]).toMatchObject({
      index: 0,
      link: { destination: "https://example.com/new", tags: ["bulk"], title: "New" },
    });
    expect(results[1].link.id).toBe(results[0].link.id);
    expect(results[3].error).toMatch(/already taken/);
    expect(results[5].error).toMatch(/does not accept: colour/);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(2);
  });

  it("refuses an empty list, more than 100 items and a viewer", async () => {
    const user = await newUser();
    expect((await bulk(user, [])).status).toBe(400);
    const tooMany = await bulk(
      user,
      Array.from({ length: 101 }, (_, i) => ({ destination: `https://example.com/${i}` })),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/at most 100/);
    const viewer = await joinWorkspace(await newUser(), user.workspaceId, "viewer");
    expect(
      (await call("POST", "/api/links/bulk", { ...viewer, body: { links: [{ destination: "https://example.com/" }] } })).status,
    ).toBe(403);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("spends one write per item: past the budget, items get 429 and are not created", async () => {
    vi.stubEnv("WRITE_RATE_LIMIT_PER_MINUTE", "5");
    resetConfig();
    await resetWriteLimiter();
    const user = await newUser();
    const response = await bulk(
      user,
      Array.from({ length: 8 }, (_, i) => ({ destination: `https://example.com/budget/${i}` })),
    );
    expect(response.status).toBe(200);
    expect(response.body.results.map((result: { status: number }) => result.status)).toEqual([
      201, 201, 201, 201, 201, 429, 429, 429,
    ]);
    expect(response.body.results[5].error).toMatch(/Too many writes/);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(5);
  });

  it("creates what the starter plan's allowance has room for and refuses the rest with 402", async () => {
    const user = await newUser("starter", { subscription: { plan: "starter", interval: "month" } });
    const first = await bulk(
      user,
      Array.from({ length: 98 }, (_, i) => ({ destination: `https://example.com/cap/${i}` })),
    );
    expect(first.body.results.every((result: { status: number }) => result.status === 201)).toBe(true);
    const response = await bulk(
      user,
      Array.from({ length: 4 }, (_, i) => ({ destination: `https://example.com/cap/more/${i}` })),
    );
    expect(response.body.results.map((result: { status: number }) => result.status)).toEqual([201, 201, 402, 402]);
    expect(response.body.results[2].error).toMatch(/allowance|100/);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(100);
  }, 60_000);
});
