import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { randomString } from "@/lib/db/random";
import { resetTlsProvider } from "@/lib/domains/tls";
import { resetSafetyChecker } from "@/lib/safety/instance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { type FakeDnsServer, startFakeDnsServer } from "../support/fake-dns-server";
import { startVercelStandIn, type VercelStandIn } from "../support/vercel-stand-in";

const SHORT_HOST = "s.test.example";
const PROJECT = "prj_permalinkTest";
const TEAM = "team_permalinkTest";
const TOKEN = "vercel-test-token-0123456789";

let dns: FakeDnsServer;
let vercel: VercelStandIn;

beforeAll(async () => {
  dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
  vercel = await startVercelStandIn({
    token: TOKEN,
    projectId: PROJECT,
    teamId: TEAM,
    resolver: dns.resolver,
    cnameTarget: SHORT_HOST,
    addresses: ["76.76.21.21"],
  });
  Object.assign(process.env, {
    DNS_RESOLVER: dns.resolver,
    TLS_PROVIDER: "vercel",
    VERCEL_TOKEN: TOKEN,
    VERCEL_PROJECT_ID: PROJECT,
    VERCEL_TEAM_ID: TEAM,
    VERCEL_API_BASE: vercel.url,
  });
  resetConfig();
  resetSafetyChecker();
  resetTlsProvider();
});

afterAll(async () => {
  for (const variable of ["TLS_PROVIDER", "VERCEL_TOKEN", "VERCEL_PROJECT_ID", "VERCEL_TEAM_ID", "VERCEL_API_BASE"])
    delete process.env[variable];
  resetConfig();
  resetTlsProvider();
  await vercel.close();
  await dns.close();
});

function freshHostname(): string {
  return `go.shop-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 10)}.com`;
}

/** Adds the domain and publishes its TXT token; the CNAME is left to the test. */
async function addWithToken(user: TestUser, hostname: string) {
  const added = await call("POST", "/api/domains", { token: user.token, body: { hostname } });
  dns.set(`_permalink.${hostname}`, { txt: [added.body.dns[0].value] });
  return added.body as { id: string };
}

async function verify(user: TestUser, id: string) {
  return (await call("POST", `/api/domains/${id}/verify`, { token: user.token })).body;
}

describe("TLS through the Vercel project domains API", () => {
  it("never tells Vercel about a hostname nobody has proven", async () => {
    const user = await newUser();
    const hostname = freshHostname();
    const domain = await addWithToken(user, hostname);
    dns.set(hostname, { cname: "elsewhere.example.net" });
    expect(await verify(user, domain.id)).toMatchObject({ verified: false, cert_status: "pending" });
    expect(vercel.requests.filter((request) => request.path.includes(hostname))).toEqual([]);
  });

  it("adds a verified hostname to the project with token and team, and reports the certificate once Vercel sees the records", async () => {
    const user = await newUser();
    const hostname = freshHostname();
    const domain = await addWithToken(user, hostname);
    dns.set(hostname, { cname: SHORT_HOST });
    const checked = await verify(user, domain.id);
    expect(checked).toMatchObject({ verified: true, hostname_status: "active", cert_status: "active", validation_errors: [] });
    expect(vercel.domains.get(hostname)).toMatchObject({ name: hostname, projectId: PROJECT, verified: true });
    const calls = vercel.requests.filter(
      (request) => request.path.includes(hostname) || (request.body as { name?: string } | undefined)?.name === hostname,
    );
    expect(calls.map((request) => `${request.method} ${request.path}`)).toEqual([
      `GET /v9/projects/${PROJECT}/domains/${hostname}`,
      `POST /v10/projects/${PROJECT}/domains`,
      `GET /v6/domains/${hostname}/config`,
    ]);
    expect(calls.every((request) => request.authorization === `Bearer ${TOKEN}` && request.teamId === TEAM)).toBe(true);
    expect(calls[1]!.body).toEqual({ name: hostname });
  });

  it("keeps the certificate pending while Vercel finds the domain misconfigured", async () => {
    const user = await newUser();
    const hostname = freshHostname();
    const domain = await addWithToken(user, hostname);
    dns.set(hostname, { cname: SHORT_HOST });
    await verify(user, domain.id);
    dns.set(hostname, { cname: "elsewhere.example.net" });
    const checked = await verify(user, domain.id);
    expect(checked).toMatchObject({ verified: true, hostname_status: "misconfigured", cert_status: "pending" });
    expect(checked.next).toMatch(/no longer points here/);
  });

  it("passes on Vercel's own TXT challenge in dns, and verifies with Vercel once it is published", async () => {
    const user = await newUser();
    const hostname = freshHostname();
    const challenge = vercel.requireChallenge(hostname);
    const domain = await addWithToken(user, hostname);
    dns.set(hostname, { cname: SHORT_HOST });
    const waiting = await verify(user, domain.id);
    expect(waiting).toMatchObject({ verified: true, cert_status: "pending" });
    expect(waiting.dns).toContainEqual({ type: "TXT", name: challenge.name, value: challenge.value });
    expect(waiting.validation_errors).toEqual([
      `Vercel also needs the TXT record ${challenge.name} with the value ${challenge.value} before it issues a certificate.`,
    ]);
    expect(waiting.next).toMatch(/^Waiting for the certificate/);

    dns.set(challenge.name, { txt: [challenge.value] });
    const done = await verify(user, domain.id);
    expect(done).toMatchObject({ cert_status: "active", validation_errors: [] });
    expect(done.dns).not.toContainEqual(expect.objectContaining({ name: challenge.name }));
  });

  it("says so when Vercel refuses the hostname (another project has it)", async () => {
    const user = await newUser();
    const hostname = freshHostname();
    vercel.inUseElsewhere(hostname);
    const domain = await addWithToken(user, hostname);
    dns.set(hostname, { cname: SHORT_HOST });
    const checked = await verify(user, domain.id);
    expect(checked).toMatchObject({ verified: true, cert_status: "failed" });
    expect(checked.validation_errors).toEqual([
      `Vercel refused to add ${hostname} to this service's project: Cannot add ${hostname} since it's already in use by another project.`,
    ]);
  });

  it("removes the domain from the project on delete, and keeps it when Vercel is down (502)", async () => {
    const user = await newUser();
    const hostname = freshHostname();
    const domain = await addWithToken(user, hostname);
    dns.set(hostname, { cname: SHORT_HOST });
    await verify(user, domain.id);

    vercel.outage(500);
    try {
      const refused = await call("DELETE", `/api/domains/${domain.id}`, { token: user.token });
      expect(refused.status).toBe(502);
      expect(refused.body.error).toMatch(/Vercel\) answered 500/);
      const kept = await call("GET", `/api/domains/${domain.id}`, { token: user.token });
      expect(kept.body).toMatchObject({ verified: true, cert_status: "active" });
    } finally {
      vercel.outage(null);
    }
    expect((await call("DELETE", `/api/domains/${domain.id}`, { token: user.token })).status).toBe(204);
    expect(vercel.domains.has(hostname)).toBe(false);
    expect(await db().domain.count({ where: { id: domain.id } })).toBe(0);
  });
});
