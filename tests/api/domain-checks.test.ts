import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { randomString } from "@/lib/db/random";
import { noticeBrokenDomain } from "@/lib/domains/failure-notice";
import { runDomainChecks } from "@/lib/domains/job";
import { findDomain } from "@/lib/domains/store";
import { forgetVerifiedHosts } from "@/lib/domains/verified-hosts";
import { closeEmail } from "@/lib/email";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser } from "../support/api";
import { domainCheckWorld } from "../support/domain-check-world";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { visit } from "../support/visits";

const CRON_SECRET = "cron-secret-for-domain-checks";
const MINUTE = 60_000;
const HEALTHY_RECHECK = 6 * 60 * MINUTE;
const SHORT_HOST = "s.test.example";
let now = Date.parse("2026-11-24T09:00:00Z");

const world = domainCheckWorld(CRON_SECRET, () => now);

afterEach(() => {
  world.dns.remove("slow.checks-test.com");
});

function freshHostname(): string {
  return `go.shop-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 10)}.com`;
}

describe("the background domain check", () => {
  it("checks a failing domain again after 1, 2, 4 minutes, verifies it when the records appear, then every six hours", async () => {
    const user = await newUser();
    const hostname = freshHostname();
    world.dns.set(hostname, "nxdomain");
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

    world.dns.set(`_permalink.${hostname}`, { txt: [added.dns[0].value] });
    world.dns.set(hostname, { cname: "s.test.example" });
    now += 4 * MINUTE;
    expect(await runDomainChecks()).toMatchObject({ ran: true, checked: 1, verified: 1, failing: 0 });
    expect(await row()).toMatchObject({
      failedChecks: 0,
      hostnameStatus: "active",
      nextCheckAt: new Date(now + 6 * 60 * MINUTE),
    });
    expect((await call("GET", `/api/domains/${added.id}`, { token: user.token })).body.verified).toBe(true);
  });

  it("runs on one instance at a time: a run that finds the lease held does nothing", async () => {
    const user = await newUser();
    const hostname = "slow.checks-test.com";
    // The DNS server never answers for this name, so each run holds the lease for seconds.
    world.dns.set(hostname, "silent");
    await call("POST", "/api/domains", { token: user.token, body: { hostname } });
    now += 10 * MINUTE;
    const runs = await Promise.all([runDomainChecks(), runDomainChecks(), runDomainChecks()]);
    expect(runs.filter((run) => run.ran)).toHaveLength(1);
    const idle = { ran: false, checked: 0, verified: 0, failing: 0, notices: 0 };
    expect(runs.filter((run) => !run.ran)).toEqual([idle, idle]);
    expect(await db().jobLease.count()).toBe(0);
  }, 40_000);

  it("takes over a lease whose holder died (expired), never one still held", async () => {
    await db().jobLease.create({
      data: { name: "domain-checks", holder: "crashed-instance", expiresAt: new Date(now + MINUTE) },
    });
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

describe("the notice of a verified domain whose DNS broke", () => {
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_URL = smtp.url;
    resetConfig();
  });

  afterAll(async () => {
    closeEmail();
    await smtp.close();
    delete process.env.SMTP_URL;
    resetConfig();
  });

  /** A team (owner, admin, member, viewer) whose domain was verified through DNS, with one link on it. */
  async function verifiedTeamDomain() {
    const owner = await newUser("notice-owner");
    const [admin, member, viewer] = await Promise.all([
      newUser("notice-admin"),
      newUser("notice-member"),
      newUser("notice-viewer"),
    ]);
    await joinWorkspace(admin, owner.workspaceId, "admin");
    await joinWorkspace(member, owner.workspaceId, "member");
    await joinWorkspace(viewer, owner.workspaceId, "viewer");
    const hostname = freshHostname();
    const added = (await call("POST", "/api/domains", { token: owner.token, body: { hostname } })).body;
    world.dns.set(`_permalink.${hostname}`, { txt: [added.dns[0].value] });
    world.dns.set(hostname, { cname: SHORT_HOST });
    expect((await call("POST", `/api/domains/${added.id}/verify`, { token: owner.token })).body).toMatchObject({
      verified: true,
      hostname_status: "active",
    });
    const slug = `kept-${randomString(SLUG_ALPHABET, 6)}`;
    expect(
      (
        await call("POST", "/api/links", {
          token: owner.token,
          body: { destination: "https://example.com/kept", slug, domain_id: added.id },
        })
      ).status,
    ).toBe(201);
    return { owner, admin, hostname, id: added.id as string, slug };
  }

  const noticesAbout = (hostname: string) => smtp.messages.filter((message) => message.mail.subject?.includes(hostname));
  const row = (id: string) => db().domain.findUniqueOrThrow({ where: { id } });

  it("e-mails the owners and admins once per failure, saying what is wrong and what to set; the links keep resolving", async () => {
    const { owner, admin, hostname, id, slug } = await verifiedTeamDomain();

    world.dns.set(hostname, { cname: "parked.registrar-example.net" });
    now += HEALTHY_RECHECK + MINUTE;
    expect(await runDomainChecks()).toMatchObject({ ran: true, notices: 1 });

    const [notice] = noticesAbout(hostname);
    expect(noticesAbout(hostname)).toHaveLength(1);
    expect(notice!.envelopeTo.sort()).toEqual([owner.email, admin.email].sort());
    expect(notice!.mail.subject).toBe(`Action needed: the DNS of ${hostname} no longer points to Permalink`);
    const text = notice!.mail.text!;
    expect(text).toContain(
      `- ${hostname} is a CNAME to parked.registrar-example.net, not to ${SHORT_HOST}: point it at ${SHORT_HOST}.`,
    );
    expect(text).toContain(`  CNAME  ${hostname}  ${SHORT_HOST}`);
    expect(text).toContain(`links on ${hostname} keep working`);
    // Permanence: the failed check took nothing down; the door, asked afresh, still serves the link.
    forgetVerifiedHosts();
    expect((await visit(`/${slug}`, { host: hostname })).headers.Location).toBe("https://example.com/kept");
    expect((await call("GET", `/api/domains/${id}`, { token: owner.token })).body).toMatchObject({
      verified: true,
      hostname_status: "misconfigured",
    });

    // Still broken at the next checks (the job's and a verify): no second message.
    now += 2 * MINUTE;
    expect(await runDomainChecks()).toMatchObject({ ran: true, notices: 0 });
    await call("POST", `/api/domains/${id}/verify`, { token: owner.token });
    expect(noticesAbout(hostname)).toHaveLength(1);

    // Repaired: the failure is over and its notice cleared.
    world.dns.set(hostname, { cname: SHORT_HOST });
    now += 10 * MINUTE;
    await runDomainChecks();
    expect(await row(id)).toMatchObject({ hostnameStatus: "active", noticeSentAt: null });

    // Broken anew: a new failure, a new message.
    world.dns.set(hostname, "nxdomain");
    now += HEALTHY_RECHECK + MINUTE;
    expect(await runDomainChecks()).toMatchObject({ ran: true, notices: 1 });
    expect(noticesAbout(hostname)).toHaveLength(2);
    expect(noticesAbout(hostname)[1]!.mail.text).toContain(`- ${hostname} has no CNAME record: add a CNAME to ${SHORT_HOST}.`);
    forgetVerifiedHosts();
    expect((await visit(`/${slug}`, { host: hostname })).headers.Location).toBe("https://example.com/kept");
  });

  it("sends one message when several checks find the same failure at once: the claim is one conditional UPDATE", async () => {
    const { owner, hostname, id } = await verifiedTeamDomain();
    world.dns.set(hostname, { cname: "parked.registrar-example.net" });
    await call("POST", `/api/domains/${id}/verify`, { token: owner.token });
    const broken = (await findDomain(id))!;
    expect(broken).toMatchObject({ hostnameStatus: "misconfigured", noticeSentAt: null });

    const sent = await Promise.all(Array.from({ length: 6 }, () => noticeBrokenDomain(broken)));

    expect(sent.filter(Boolean)).toHaveLength(1);
    expect(noticesAbout(hostname)).toHaveLength(1);
    expect((await row(id)).noticeSentAt).not.toBeNull();
  });

  it("gives the claim back when the mail server refuses the message, so the next check sends it", async () => {
    const { owner, hostname, id } = await verifiedTeamDomain();
    const refusing = new URL(smtp.url);
    refusing.password = "not-the-password";
    process.env.SMTP_URL = refusing.toString();
    resetConfig();
    try {
      world.dns.set(hostname, "nxdomain");
      now += HEALTHY_RECHECK + MINUTE;
      expect(await runDomainChecks()).toMatchObject({ ran: true, notices: 0 });
      expect(await row(id)).toMatchObject({ hostnameStatus: "misconfigured", noticeSentAt: null });
    } finally {
      process.env.SMTP_URL = smtp.url;
      resetConfig();
    }

    now += 2 * MINUTE;
    expect(await runDomainChecks()).toMatchObject({ ran: true, notices: 1 });
    expect(noticesAbout(hostname)).toHaveLength(1);
    expect((await smtp.messageTo(owner.email)).mail.subject).toContain(hostname);
  });
});
