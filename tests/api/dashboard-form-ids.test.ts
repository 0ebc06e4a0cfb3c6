import { getDomain, removeDomain, verifyDomain } from "@/lib/domains/service";
import { resendInvitation } from "@/lib/members/invitations";
import { changeRole, removeMember } from "@/lib/members/service";
import { dashboardPrincipal, findDashboardUser, startDashboardSession } from "@/lib/workspaces/sign-in";
import { findRole } from "@/lib/workspaces/store";
import type { Principal } from "@/lib/workspaces/types";
import { describe, expect, it } from "vitest";
import { newUser } from "../support/api";

// The dashboard's server actions pass the id a form posted straight to the capability (the API's
// route wrapper checks a path's id first; a form's never passes through it). Anyone can post any
// form, so an id no record can have must be "not found", as it is for links, and never reach
// PostgreSQL as text it cannot hold (a NUL character made the action answer "Something went wrong
// on our side" and log an unhandled error).

const IMPOSSIBLE_IDS = ["\u0000", "dom_\u0000", "inv_\u0000", "x".repeat(500)];

describe("an impossible id posted through a dashboard form", () => {
  it.each(IMPOSSIBLE_IDS.map((id) => [JSON.stringify(id).slice(0, 20), id]))(
    "is not found by the domain and member actions' capabilities (%s)",
    async (_shown, id) => {
      const owner = await newUser("form-ids");
      const principal: Principal = { kind: "session", userId: owner.userId, workspaceId: owner.workspaceId, role: "owner" };
      const calls: [string, () => Promise<unknown>][] = [
        ["getDomain", () => getDomain(principal, id)],
        ["verifyDomain", () => verifyDomain(principal, id)],
        ["removeDomain", () => removeDomain(principal, id)],
        ["changeRole", () => changeRole(principal, id, "viewer")],
        ["removeMember", () => removeMember(principal, id)],
        ["resendInvitation", () => resendInvitation(principal, id)],
      ];
      const answers = await Promise.all(
        calls.map(async ([name, run]) => [
          name,
          await run().then(
            () => "done",
            (error: { code?: string }) => error.code ?? String(error),
          ),
        ]),
      );
      expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(calls.map(([name]) => [name, "not_found"])));
    },
  );
});

describe("an impossible workspace id in the dashboard's workspace cookie or its switch form", () => {
  // Every dashboard page reads the cookie (a NUL character in it made every page a 500).
  it.each(IMPOSSIBLE_IDS.map((id) => [JSON.stringify(id).slice(0, 20), id]))(
    "names no membership, and the dashboard acts on the personal workspace (%s)",
    async (_shown, id) => {
      const user = await newUser("cookie-ids");
      expect(await findRole(id, user.userId)).toBeNull();
      const dashboardUser = (await findDashboardUser(user.userId, await startDashboardSession(user.userId)))!;
      expect(await dashboardPrincipal(dashboardUser, id)).toEqual({
        kind: "session",
        userId: user.userId,
        workspaceId: user.workspaceId,
        role: "owner",
      });
    },
  );
});
