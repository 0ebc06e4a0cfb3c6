import { db } from "@/lib/db/client";
import { randomString } from "@/lib/db/random";
import { runDomainChecks } from "@/lib/domains/job";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { domainCheckWorld } from "../support/domain-check-world";

// A domain may be removed while a check of it waits on DNS (its owner's "verify now", the
// background job): the check then has nothing to write to, which must not fail the request or the
// job's run, and two removals at once answer as one removal and one "not found".

const CRON_SECRET = "cron-secret-for-domain-removal-races";
let now = Date.parse("2026-11-24T09:00:00Z");

const world = domainCheckWorld(CRON_SECRET, () => now);

function freshHostname(): string {
  return `go.race-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 10)}.com`;
}

/** A domain whose DNS never answers, so each check of it waits seconds (the resolver's time-outs). */
async function slowDomain(token: string): Promise<{ id: string; hostname: string }> {
  const hostname = freshHostname();
  const added = (await call("POST", "/api/domains", { token, body: { hostname } })).body;
  world.dns.set(hostname, "silent");
  world.dns.set(`_permalink.${hostname}`, "silent");
  return { id: added.id, hostname };
}

describe("a domain removed while it is being checked", () => {
  it("answers the verify that was waiting on its DNS with 404, not a 500", async () => {
    const user = await newUser();
    const { id } = await slowDomain(user.token);
    const verifying = call("POST", `/api/domains/${id}/verify`, { token: user.token });
    await sleep(300);
    expect((await call("DELETE", `/api/domains/${id}`, { token: user.token })).status).toBe(204);
    const verified = await verifying;
    expect({ status: verified.status, body: verified.body }).toEqual({
      status: 404,
      body: { error: "No domain with this id exists in this workspace." },
    });
  }, 30_000);

  it("lets the background run go on to the next due domain", async () => {
    const user = await newUser();
    const removed = await slowDomain(user.token);
    const hostname = freshHostname();
    const other = (await call("POST", "/api/domains", { token: user.token, body: { hostname } })).body;
    // The removed domain is the more overdue one, so it is checked first.
    await db().domain.update({ where: { id: removed.id }, data: { nextCheckAt: new Date(now - 60_000) } });
    await db().domain.update({ where: { id: other.id }, data: { nextCheckAt: new Date(now) } });
    now += 10 * 60_000;
    const running = call("GET", "/api/cron/domains", { token: CRON_SECRET });
    await sleep(300);
    expect((await call("DELETE", `/api/domains/${removed.id}`, { token: user.token })).status).toBe(204);
    const run = await running;
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ ran: true, checked: 1 });
    expect((await db().domain.findUniqueOrThrow({ where: { id: other.id } })).checkedAt).toEqual(new Date(now));
    expect(await db().jobLease.count()).toBe(0);
    expect((await runDomainChecks()).ran).toBe(true);
  }, 30_000);
});

describe("two removals of one domain at once", () => {
  it("remove it once and say so; the other is told it is gone, never a 500", async () => {
    const user = await newUser();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const added = (await call("POST", "/api/domains", { token: user.token, body: { hostname: freshHostname() } })).body;
      const answers = await Promise.all([0, 1, 2].map(() => call("DELETE", `/api/domains/${added.id}`, { token: user.token })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([204, 404, 404]);
    }
  });
});
