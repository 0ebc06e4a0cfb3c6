import { DomainCard } from "@/app/dashboard/domains/domain-card";
import { resetConfig } from "@/lib/config";
import { newId, randomString } from "@/lib/db/random";
import { readCertificateExpiry } from "@/lib/domains/certificate";
import { runDomainExpiryChecks } from "@/lib/domains/expiry";
import { lookUpRegistrationExpiry } from "@/lib/domains/rdap";
import { claimExpiryWarning, findDomain } from "@/lib/domains/store";
import { forgetVerifiedHosts } from "@/lib/domains/verified-hosts";
import { closeEmail } from "@/lib/email";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { runWebhookDeliveries } from "@/lib/webhooks/worker";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";
import { domainCheckWorld } from "../support/domain-check-world";
import { type RdapServer, startRdapServer } from "../support/rdap-server";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { startTlsServer, type TlsServer } from "../support/tls-server";
import { visit } from "../support/visits";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

const CRON_SECRET = "cron-secret-for-domain-expiry";
const SHORT_HOST = "s.test.example";
const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
// Real time: the test's certificates are made by openssl, valid from the machine's now.
let now = Date.now();

const world = domainCheckWorld(CRON_SECRET, () => now);
let rdap: RdapServer;
let tlsServer: TlsServer;
let smtp: TestSmtpServer;
let receiver: WebhookReceiver;
let bootstrapDir: string;

/** A bootstrap file in IANA's dns.json format (RFC 9224) sending .com to `base`. */
function writeBootstrap(base: string): string {
  const file = join(bootstrapDir, `dns-${randomString("abcdefghij", 8)}.json`);
  writeFileSync(
    file,
    JSON.stringify({ version: "1.0", publication: "2026-12-01T00:00:00Z", description: "test", services: [[["com"], [base]]] }),
  );
  return file;
}

function useSettings(settings: Record<string, string | undefined>) {
  for (const [name, value] of Object.entries(settings))
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  resetConfig();
}

beforeAll(async () => {
  [rdap, tlsServer, smtp, receiver] = await Promise.all([
    startRdapServer(),
    startTlsServer(),
    startSmtpServer(),
    startWebhookReceiver(),
  ]);
  bootstrapDir = mkdtempSync(join(tmpdir(), "permalink-rdap-"));
  // Verified domains are CNAMEs to the short host, which answers on this machine: the TLS server is there.
  world.dns.set(SHORT_HOST, { a: ["127.0.0.1"] });
  useSettings({
    SMTP_URL: smtp.url,
    RDAP_BOOTSTRAP_FILE: writeBootstrap(rdap.base),
    CERTIFICATE_CHECK_PORT: String(tlsServer.port),
    // The registry, the TLS server and the receiver run on 127.0.0.1, as a self-hosted operator's own network would.
    WEBHOOK_PRIVATE_NETWORKS: "127.0.0.0/8",
  });
});

afterAll(async () => {
  closeEmail();
  await Promise.all([rdap.close(), tlsServer.close(), smtp.close(), receiver.close()]);
  rmSync(bootstrapDir, { recursive: true, force: true });
  useSettings({
    SMTP_URL: undefined,
    RDAP_BOOTSTRAP_FILE: undefined,
    CERTIFICATE_CHECK_PORT: undefined,
    WEBHOOK_PRIVATE_NETWORKS: undefined,
  });
});

beforeEach(() => {
  now = Date.now();
});

/** A team (owner, admin, member) whose domain go.<registrable> is verified, with one link on it and a webhook for domain.expiring. */
async function verifiedTeamDomain() {
  const owner = await newUser("expiry-owner");
  const [admin, member] = await Promise.all([newUser("expiry-admin"), newUser("expiry-member")]);
  await joinWorkspace(admin, owner.workspaceId, "admin");
  await joinWorkspace(member, owner.workspaceId, "member");
  const registrable = `shop-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 10)}.com`;
  const hostname = `go.${registrable}`;
  const added = (await call("POST", "/api/domains", { token: owner.token, body: { hostname } })).body;
  world.dns.set(`_permalink.${hostname}`, { txt: [added.dns[0].value] });
  world.dns.set(hostname, { cname: SHORT_HOST });
  expect((await call("POST", `/api/domains/${added.id}/verify`, { token: owner.token })).body.verified).toBe(true);
  const slug = `kept-${randomString(SLUG_ALPHABET, 6)}`;
  const link = await call("POST", "/api/links", {
    token: owner.token,
    body: { destination: "https://example.com/kept", slug, domain_id: added.id },
  });
  expect(link.status, link.text).toBe(201);
  const hook = await call("POST", "/api/webhooks", {
    token: owner.token,
    body: { url: receiver.url, events: ["domain.expiring"] },
  });
  expect(hook.status, hook.text).toBe(201);
  receiver.secret = hook.body.secret;
  return { owner, admin, member, registrable, hostname, id: added.id as string, slug };
}

const mailsAbout = (name: string) => smtp.messages.filter((message) => message.mail.subject?.includes(name));

/** The domain.expiring messages about this domain delivered so far: [kind, days]. */
async function expiringHooks(id: string): Promise<[string, number][]> {
  while ((await runWebhookDeliveries()).attempted > 0);
  return receiver.received
    .filter((message) => message.type === "domain.expiring" && message.data.domain.id === id)
    .map((message) => [message.data.kind, message.data.days]);
}

async function domainView(owner: TestUser, id: string) {
  const listed = await call("GET", "/api/domains", { token: owner.token });
  expect(listed.status).toBe(200);
  return listed.body.domains.find((domain: { id: string }) => domain.id === id);
}

/** The link on the domain still redirects where it did: a warning (or a lapse) never changes resolution. */
async function expectStillResolves(hostname: string, slug: string) {
  forgetVerifiedHosts();
  expect((await visit(`/${slug}`, { host: hostname })).headers.Location).toBe("https://example.com/kept");
}

describe("the expiry of a verified custom domain", () => {
  it("reads the registration over RDAP and the certificate by a handshake, at most daily, and shows both in GET /api/domains", async () => {
    const { owner, registrable, hostname, id } = await verifiedTeamDomain();
    const registration = new Date(Math.floor((now + 200 * DAY) / 1000) * 1000);
    rdap.setExpiry(registrable, registration);
    const certificate = tlsServer.issue(hostname, 80);
    expect(await domainView(owner, id)).toMatchObject({ registration_expires_at: null, certificate_expires_at: null });

    const run = await call("GET", "/api/cron/domain-expiry", { token: CRON_SECRET });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ ran: true, looked_up: expect.any(Number), warnings: 0 });
    expect(await domainView(owner, id)).toMatchObject({
      registration_expires_at: registration.getTime(),
      certificate_expires_at: certificate.getTime(),
    });
    expect(rdap.requests).toContain(`/rdap/domain/${registrable}`);
    expect(tlsServer.handshakesFor(hostname)).toBe(1);

    // An hour later nothing is due: the registry is asked at most daily, the certificate read daily while far off.
    now += HOUR;
    const asked = rdap.requests.length;
    await runDomainExpiryChecks();
    expect(rdap.requests.length).toBe(asked);
    expect(tlsServer.handshakesFor(hostname)).toBe(1);

    now += DAY;
    await runDomainExpiryChecks();
    expect(rdap.requests.filter((path) => path === `/rdap/domain/${registrable}`)).toHaveLength(2);
    expect(tlsServer.handshakesFor(hostname)).toBe(2);
    expect(mailsAbout(registrable)).toHaveLength(0);
  });

  it("warns 30, 7 and 1 days before the registration lapses: one e-mail to owners and admins and one webhook each; a renewal ends it", async () => {
    const { owner, admin, registrable, hostname, id, slug } = await verifiedTeamDomain();
    tlsServer.issue(hostname, 300);
    const lapse = new Date(Math.floor((now + 40 * DAY) / 1000) * 1000);
    rdap.setExpiry(registrable, lapse);
    await runDomainExpiryChecks();
    expect(mailsAbout(registrable)).toHaveLength(0);

    // 29 days left: the 30-day warning, once however many runs see it.
    now = lapse.getTime() - 29 * DAY;
    await runDomainExpiryChecks();
    now += HOUR;
    await runDomainExpiryChecks();
    expect(mailsAbout(registrable)).toHaveLength(1);
    const [first] = mailsAbout(registrable);
    expect(first!.envelopeTo.sort()).toEqual([owner.email, admin.email].sort());
    expect(first!.mail.subject).toBe(`The domain ${registrable} lapses in 29 days`);
    expect(first!.mail.text).toContain(`Renew ${registrable} with your registrar`);
    expect(first!.mail.text).toContain(`every code on ${hostname} still exists and resolves`);
    expect(await expiringHooks(id)).toEqual([["registration", 30]]);

    // 6 days left, then 12 hours: the 7-day and the 1-day warnings, each once.
    now = lapse.getTime() - 6 * DAY;
    await runDomainExpiryChecks();
    await runDomainExpiryChecks();
    now = lapse.getTime() - 12 * HOUR;
    await runDomainExpiryChecks();
    now += HOUR;
    await runDomainExpiryChecks();
    expect(mailsAbout(registrable).map((message) => message.mail.subject)).toEqual([
      `The domain ${registrable} lapses in 29 days`,
      `The domain ${registrable} lapses in 6 days`,
      `The domain ${registrable} lapses within a day`,
    ]);
    expect(await expiringHooks(id)).toEqual([
      ["registration", 30],
      ["registration", 7],
      ["registration", 1],
    ]);
    const message = receiver.received.find((hook) => hook.type === "domain.expiring" && hook.data.days === 1)!;
    expect(message.data).toMatchObject({ kind: "registration", expires_at: lapse.getTime() });
    expect(message.data.domain).toMatchObject({ id, hostname, registration_expires_at: lapse.getTime() });
    await expectStillResolves(hostname, slug);

    // Past the lapse: the link still resolves; then renewed, read the next day, and nothing more is sent.
    now = lapse.getTime() + HOUR;
    await expectStillResolves(hostname, slug);
    const renewed = new Date(lapse.getTime() + 365 * DAY);
    rdap.setExpiry(registrable, renewed);
    now = lapse.getTime() + DAY;
    await runDomainExpiryChecks();
    expect((await domainView(owner, id)).registration_expires_at).toBe(renewed.getTime());
    expect(mailsAbout(registrable)).toHaveLength(3);
    expect(await expiringHooks(id)).toHaveLength(3);
    await expectStillResolves(hostname, slug);
  });

  it("warns before the certificate lapses on a fresh reading only: the nearest threshold, then the last day", async () => {
    const { registrable, hostname, id } = await verifiedTeamDomain();
    rdap.setExpiry(registrable, new Date(now + 300 * DAY));
    const notAfter = tlsServer.issue(hostname, 3);
    await runDomainExpiryChecks();
    // First seen 3 days before it lapses: the 7-day warning only (never a stale 30-day one).
    expect(await expiringHooks(id)).toEqual([["certificate", 7]]);
    const mails = () => mailsAbout(hostname).filter((mail) => mail.mail.subject?.startsWith("The certificate of"));
    expect(mails().map((mail) => mail.mail.subject)).toEqual([`The certificate of ${hostname} lapses in 3 days`]);
    expect(mails()[0]!.mail.text).toContain("Certificates are renewed by themselves well before they lapse");

    // 12 hours before it lapses: read again (hourly in its last 30 days), the same certificate, the 1-day warning.
    const handshakes = tlsServer.handshakesFor(hostname);
    now = notAfter.getTime() - 12 * HOUR;
    await runDomainExpiryChecks();
    expect(tlsServer.handshakesFor(hostname)).toBe(handshakes + 1);
    expect(await expiringHooks(id)).toEqual([
      ["certificate", 7],
      ["certificate", 1],
    ]);
    expect(mails()).toHaveLength(2);

    // Renewed: the next hourly reading sees the new date, and no warning follows.
    const renewed = tlsServer.issue(hostname, 90);
    now += 2 * HOUR;
    await runDomainExpiryChecks();
    expect((await findDomain(id))!.certificateExpiresAt!.getTime()).toBe(renewed.getTime());
    expect(mails()).toHaveLength(2);
  });

  it("gives the e-mail's claim back when the mail server refuses it, so the next run sends it; the webhook stays one", async () => {
    const { owner, registrable, hostname, id } = await verifiedTeamDomain();
    tlsServer.issue(hostname, 300);
    rdap.setExpiry(registrable, new Date(Math.floor((now + 20 * DAY) / 1000) * 1000));
    const refusing = new URL(smtp.url);
    refusing.password = "not-the-password";
    useSettings({ SMTP_URL: refusing.toString() });
    try {
      expect(await runDomainExpiryChecks()).toMatchObject({ ran: true, emails: 0 });
    } finally {
      useSettings({ SMTP_URL: smtp.url });
    }
    expect(mailsAbout(registrable)).toHaveLength(0);
    now += HOUR;
    expect(await runDomainExpiryChecks()).toMatchObject({ ran: true, warnings: 0, emails: 1 });
    expect((await smtp.messageTo(owner.email)).mail.subject).toBe(`The domain ${registrable} lapses in 20 days`);
    expect(await expiringHooks(id)).toEqual([["registration", 30]]);
  });

  it("decides each warning once however many claim it at once: one INSERT … ON CONFLICT DO NOTHING", async () => {
    const { registrable, hostname, id } = await verifiedTeamDomain();
    rdap.setExpiry(registrable, new Date(Math.floor((now + 5 * DAY) / 1000) * 1000));
    tlsServer.issue(hostname, 300);
    // The run reads the dates and decides the 7-day warning (5 days left).
    await runDomainExpiryChecks();
    const { registrationExpiresAt } = (await findDomain(id))!;
    /** Six claims of the same warning at once; how many got it. */
    const claimsWon = async (days: number) =>
      (
        await Promise.all(
          Array.from({ length: 6 }, () =>
            claimExpiryWarning(
              {
                id: newId("dew"),
                domainId: id,
                kind: "registration",
                expiresAt: registrationExpiresAt!,
                days,
                now: new Date(now),
              },
              async () => undefined,
            ),
          ),
        )
      ).filter(Boolean).length;
    expect(await claimsWon(7)).toBe(0); // the run decided it already
    expect(await claimsWon(1)).toBe(1);
  });

  it("shows the dates on the domain card, with a warning in plain words when a lapse is near", async () => {
    const { owner, registrable, hostname, id } = await verifiedTeamDomain();
    const lapse = new Date(Math.floor((now + 6 * DAY) / 1000) * 1000);
    rdap.setExpiry(registrable, lapse);
    tlsServer.issue(hostname, 200);
    await runDomainExpiryChecks();
    const html = renderToStaticMarkup(createElement(DomainCard, { domain: await domainView(owner, id), manages: false }));
    expect(html).toContain("Registration of " + registrable);
    expect(html).toContain(`The registration of ${registrable} runs out in 6 days`);
    expect(html).toContain("Renew it with your registrar");
    expect(html).toMatch(/HTTPS certificate<\/dt><dd[^>]*>until \d+ \w+ \d{4}/);

    const quiet = renderToStaticMarkup(
      createElement(DomainCard, {
        domain: { ...(await domainView(owner, id)), registration_expires_at: now + 100 * DAY },
        manages: false,
      }),
    );
    expect(quiet).not.toContain("runs out in");
  });
});

describe("the outbound rules of the expiry lookups", () => {
  it("refuses an RDAP server or a domain on an internal address unless the operator named its network, and a metadata address always", async () => {
    const asked = rdap.requests.length;
    useSettings({ WEBHOOK_PRIVATE_NETWORKS: undefined });
    try {
      expect(await lookUpRegistrationExpiry("go.refused-example.com")).toEqual({
        domain: "refused-example.com",
        expiresAt: null,
        problem:
          "The RDAP server's address points at a loopback address (127.0.0.0/8), which the service does not send requests to.",
      });
      world.dns.set("go.refused-example.com", { cname: SHORT_HOST });
      expect(await readCertificateExpiry("go.refused-example.com")).toEqual({
        expiresAt: null,
        problem: "The domain's address is internal or private, so its certificate is not read.",
      });

      useSettings({
        WEBHOOK_PRIVATE_NETWORKS: "127.0.0.0/8, 169.254.0.0/16",
        RDAP_BOOTSTRAP_FILE: writeBootstrap("http://169.254.169.254/rdap/"),
      });
      expect((await lookUpRegistrationExpiry("go.refused-example.com")).problem).toBe(
        "The RDAP server's address points at a cloud metadata endpoint (169.254.169.254), which the service does not send requests to.",
      );
      // A name of the registry that points inside is refused too, at the lookup.
      world.dns.set("rdap.inside-example.net", { a: ["10.1.2.3"] });
      useSettings({
        WEBHOOK_PRIVATE_NETWORKS: undefined,
        RDAP_BOOTSTRAP_FILE: writeBootstrap("https://rdap.inside-example.net/"),
      });
      expect((await lookUpRegistrationExpiry("go.refused-example.com")).problem).toBe(
        "The RDAP server's address is internal or private, so it is not asked.",
      );
    } finally {
      useSettings({ WEBHOOK_PRIVATE_NETWORKS: "127.0.0.0/8", RDAP_BOOTSTRAP_FILE: writeBootstrap(rdap.base) });
    }
    expect(rdap.requests.length).toBe(asked);
  });

  it("says why when the registry has no record, no RDAP service is known, or the bootstrap file is not in IANA's format", async () => {
    expect((await lookUpRegistrationExpiry("go.never-registered-here.com")).problem).toBe(
      "The registry's RDAP server has no record of never-registered-here.com.",
    );
    expect((await lookUpRegistrationExpiry("go.example.de")).problem).toBe(
      "The registry of example.de publishes no RDAP service that this deployment knows of.",
    );
    const broken = join(bootstrapDir, "broken.json");
    writeFileSync(broken, JSON.stringify({ version: "1.0", services: "com" }));
    useSettings({ RDAP_BOOTSTRAP_FILE: broken });
    try {
      expect((await lookUpRegistrationExpiry("go.example.com")).problem).toMatch(
        /^The RDAP bootstrap is not in IANA's dns.json format/,
      );
    } finally {
      useSettings({ RDAP_BOOTSTRAP_FILE: writeBootstrap(rdap.base) });
    }
  });
});
