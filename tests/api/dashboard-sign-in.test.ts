import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { dashboardPrincipal, findDashboardUser, signInAdapter, signInAs, startDashboardSession } from "@/lib/workspaces/sign-in";
import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { call, joinWorkspace, newUser, sessionFor } from "../support/api";

const adapter = signInAdapter();

describe("the dashboard's sign-in store (next-auth adapter)", () => {
  it("signs a person in as the same user, personal workspace and memberships the API knows from a session token", async () => {
    const apiUser = await newUser("one-identity");
    const signedIn = await signInAs(apiUser.email.toUpperCase());
    expect(signedIn.id).toBe(apiUser.userId);
    expect(signedIn.email).toBe(apiUser.email);
    expect(await adapter.getUserByEmail!(`  ${apiUser.email.toUpperCase()} `)).toMatchObject({ id: apiUser.userId });

    const team = await newUser("team-owner");
    await joinWorkspace(apiUser, team.workspaceId, "member");
    const user = (await findDashboardUser(signedIn.id, await startDashboardSession(signedIn.id)))!;
    expect(user.personalWorkspaceId).toBe(apiUser.workspaceId);
    expect(await dashboardPrincipal(user, team.workspaceId)).toEqual({
      kind: "session",
      userId: apiUser.userId,
      workspaceId: team.workspaceId,
      role: "member",
    });
    // A workspace the user is not a member of falls back to their own, as it never acts on another's.
    const stranger = await newUser("stranger");
    expect(await dashboardPrincipal(user, stranger.workspaceId)).toMatchObject({
      workspaceId: apiUser.workspaceId,
      role: "owner",
    });
  });

  it("creates a first-time user with a personal workspace the API then finds by session token", async () => {
    const created = await adapter.createUser!({ email: "First.Timer@Example.COM", emailVerified: new Date() });
    expect(created).toMatchObject({ email: "first.timer@example.com" });
    const response = await call("GET", "/api/workspaces", {
      headers: { authorization: `Bearer ${await sessionFor("first.timer@example.com")}` },
    });
    expect(response.status).toBe(200);
    const user = (await findDashboardUser(created.id, await startDashboardSession(created.id)))!;
    expect(response.body.workspace.id).toBe(user.personalWorkspaceId);
  });

  it("stores only the hashed magic-link token, and a link works once even when used twice at once", async () => {
    const token = createHash("sha256").update(`raw-token${process.env.AUTH_SECRET}`).digest("hex");
    const expires = new Date(Date.now() + 15 * 60 * 1000);
    await adapter.createVerificationToken!({ identifier: "once@example.com", token, expires });
    const stored = await db().signInToken.findMany({ where: { identifier: "once@example.com" } });
    expect(stored.map((row) => row.tokenHash)).toEqual([token]);

    const uses = await Promise.all([1, 2, 3].map(() => adapter.useVerificationToken!({ identifier: "once@example.com", token })));
    expect(uses.filter(Boolean)).toEqual([{ identifier: "once@example.com", token, expires }]);
    expect(await adapter.useVerificationToken!({ identifier: "once@example.com", token })).toBeNull();
  });

  it("refuses a token for another address", async () => {
    const token = createHash("sha256").update("another").digest("hex");
    await adapter.createVerificationToken!({ identifier: "right@example.com", token, expires: new Date(Date.now() + 60_000) });
    expect(await adapter.useVerificationToken!({ identifier: "wrong@example.com", token })).toBeNull();
  });

  it("links one provider account to one user only", async () => {
    const first = await signInAs("linked@example.com");
    const second = await signInAs("other@example.com");
    const account = { provider: "github", providerAccountId: "4242", type: "oauth" as const };
    await adapter.linkAccount!({ ...account, userId: first.id });
    await expect(adapter.linkAccount!({ ...account, userId: second.id })).rejects.toThrow();
    expect(await adapter.getUserByAccount!({ provider: "github", providerAccountId: "4242" })).toMatchObject({ id: first.id });
  });
});

describe("the sign-in routes' request log", () => {
  it("logs one line per sign-in request, with the route and status and without the address", async () => {
    const info = vi.spyOn(log(), "info");
    try {
      const address = `logged-${Date.now()}@example.com`;
      const response = await call("POST", "/api/auth/signin/email", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        rawBody: new URLSearchParams({ email: address }).toString(),
      });
      expect(response.status).toBeLessThan(500);
      expect(response.headers.get("x-request-id")).toMatch(/\S/);
      const lines = info.mock.calls.filter(([, message]) => message === "request");
      expect(lines).toEqual([[{ status: response.status, durationMs: expect.any(Number) }, "request"]]);
      expect(JSON.stringify(info.mock.calls)).not.toContain(address);
    } finally {
      info.mockRestore();
    }
  });
});
