import { db } from "@/lib/db/client";
import { MAX_TEMPLATES } from "@/lib/utm/schemas";
import { describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";

describe("saves and deletes at once, and names a person reads", () => {
  it("keeps at most MAX_TEMPLATES UTM templates under concurrent saves", async () => {
    for (let round = 0; round < 4; round++) {
      const user = await newUser();
      await db().utmTemplate.createMany({
        data: Array.from({ length: MAX_TEMPLATES - 1 }, (_, index) => ({
          id: `utm_race${round}x${index}${user.workspaceId.slice(-8)}`,
          workspaceId: user.workspaceId,
          name: `t${index}`,
          nameKey: `t${index}`,
          source: "x",
        })),
      });
      const responses = await Promise.all(
        Array.from({ length: 16 }, (_, index) =>
          call("POST", "/api/utm-templates", { token: user.token, body: { name: `race ${index}`, utm_source: "x" } }),
        ),
      );
      expect(responses.map((response) => response.status).filter((status) => status >= 500)).toEqual([]);
      expect(await db().utmTemplate.count({ where: { workspaceId: user.workspaceId } })).toBeLessThanOrEqual(MAX_TEMPLATES);
    }
  });

  it.each([
    ["a zero-width space", "\u200b"],
    ["a right-to-left override", "\u202eevil"],
  ])("refuses a UTM template name that is only %s, or reorders what a person reads", async (_label, name) => {
    const user = await newUser();
    const response = await call("POST", "/api/utm-templates", { token: user.token, body: { name, utm_source: "x" } });
    expect(response.status).toBe(400);
  });

  it("answers concurrent deletes of one tag without a 5xx", async () => {
    const user = await newUser();
    for (let round = 0; round < 5; round++) {
      const tag = await call("POST", "/api/tags", { token: user.token, body: { name: `gone ${round}` } });
      expect(tag.status).toBe(201);
      const responses = await Promise.all([
        call("DELETE", `/api/tags/${tag.body.id}`, { token: user.token }),
        call("DELETE", `/api/tags/${tag.body.id}`, { token: user.token }),
        call("PATCH", `/api/tags/${tag.body.id}`, { token: user.token, body: { color: "red" } }),
      ]);
      expect(responses.map((response) => response.status).filter((status) => status >= 500)).toEqual([]);
    }
  });
});
