import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { randomString } from "@/lib/db/random";
import { runDomainChecks } from "@/lib/domains/job";
import { resetTlsProvider } from "@/lib/domains/tls";
import { call, newUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { type FakeDnsServer, startFakeDnsServer } from "../support/fake-dns-server";

const CRON_SECRET = "cron-secret-for-domain-checks";
const MINUTE = 60_000;
let dns: FakeDnsServer;
let now = Date.parse("2026-11-24T09:00:00Z");

beforeAll(async () => {
  dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
  process.env.DNS_RESOLVER = dns.resolver;
  process.env.CRON_SECRET = CRON_SECRET;
  resetConfig();
  resetTlsProvider();
  setClock({ now: () => now });
});

afterEach(() => {
  dns.remove("slow.checks-test.com");
});

afterAll(async () => {
  setClock(undefined);
  delete process.env.CRON_SECRET;
  resetConfig();
  await dns.close();
});

function freshHostname(): string {
  return `go.shop-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 10)}.com`;
}

describe("the background domain check", () => {
  it("checks a failing domain again after 1, 2, 4 minutes, verifies it when the records appear, then every six hours", async () => {
    const user = await newUser();
    const hostname = freshHostname();
    dns.set(hostname, "nxdomain");
    const added = (await call("POST", "/api/domains", { token: user.token, body: { hostname } })).body;
    const row = () => db().domain.findUniqueOrThrow({ where: { id: added.id } });
    expect(await row()).toMatchObject({ failedChecks: 1, nextCheckAt: new Date(now + MINUTE) });

    now += 30_000;
    await runDomainChecks();
    expect((await row()).failedChecks).toBe(1);

    now += 30_000;
    expect(await runDomainChecks()).toMatchObject({ ran: true, failing: 1 });
    expect(await row()).toMatchObject({ failedChecks: 2, nextCheckAt: new Date(now + 2 * MINUTE) });
    now += 2 * MINUTE;
    await runDomainChecks();
    expect(await row()).toMatchObject({ failedChecks: 3, nextCheckAt: new Date(now + 4 * MINUTE) });

    dns.set(`_permalink.${hostname}`, { txt: [added.dns[0].value] });
    dns.set(hostname, { cname: "s.test.example" });
    now += 4 * MINUTE;
    expect(await runDomainChecks()).toMatchObject({ ran: true, checked: 1, verified: 1, failing: 0 });
    expect(await row()).toMatchObject({ failedChecks: 0, hostnameStatus: "active", nextCheckAt: new Date(now + 6 * 60 * MINUTE) });
    expect((await call("GET", `/api/domains/${added.id}`, { token: user.token })).body.verified).toBe(true);
  });

  it("runs on one instance at a time: a run that finds the lease held does nothing", async () => {
    const user = await newUser();
    const hostname = "slow.checks-test.com";
    // The DNS server never answers for this name, so each run holds the lease for seconds.
    dns.set(hostname, "silent");
    await call("POST", "/api/domains", { token: user.token, body: { hostname } });
    now += 10 * MINUTE;
    const runs = await Promise.all([runDomainChecks(), runDomainChecks(), runDomainChecks()]);
    expect(runs.filter((run) => run.ran)).toHaveLength(1);
    expect(runs.filter((run) => !run.ran)).toEqual([{ ran: false, checked: 0, verified: 0, failing: 0 }, { ran: false, checked: 0, verified: 0, failing: 0 }]);
    expect(await db().jobLease.count()).toBe(0);
  }, 40_000);

  it("takes over a lease whose holder died (expired), never one still held", async () => {
    await db().jobLease.create({ data: { name: "domain-checks", holder: "crashed-instance", expiresAt: new Date(now + MINUTE) } });
    expect((await runDomainChecks()).ran).toBe(false);
    now += 2 * MINUTE;
    expect((await runDomainChecks()).ran).toBe(true);
    expect(await db().jobLease.count()).toBe(0);
  });

  it("is scheduled through GET /api/cron/domains with CRON_SECRET", async () => {
    expect((await call("GET", "/api/cron/domains")).status).toBe(401);
    expect((await call("GET", "/api/cron/domains", { token: "wrong-secret-wrong-secret" })).status).toBe(401);
    const run = await call("GET", "/api/cron/domains", { token: CRON_SECRET });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ ran: true, checked: expect.any(Number) });
  });
});
