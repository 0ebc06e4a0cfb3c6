import { scanBuffer } from "@/lib/analytics/scans";
import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { closeEmail } from "@/lib/email";
import { runImport } from "@/lib/imports/job";
import { recheckLinks } from "@/lib/resolution/recheck";
import { resetSafetyChecker } from "@/lib/safety/instance";
import { MAX_SCAN_MESSAGE_BYTES } from "@/lib/webhooks/outbox";
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from "@/lib/webhooks/retries";
import { TEST_NOT_DELIVERED } from "@/lib/webhooks/service";
import { FINISHED_KEPT_MS, runWebhookDeliveries } from "@/lib/webhooks/worker";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, sessionFor, subscribe, type TestUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { type FakeDnsServer, startFakeDnsServer } from "../support/fake-dns-server";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { visit } from "../support/visits";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

const OPERATOR_TOKEN = "operator-token-for-the-webhook-tests-0123456789";

let receiver: WebhookReceiver;
let dns: FakeDnsServer;
let smtp: TestSmtpServer;
let now = Date.now();

beforeAll(async () => {
  // This file's own DNS server, so a test can point a name elsewhere after its webhook was saved.
  dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
  smtp = await startSmtpServer();
  process.env.DNS_RESOLVER = dns.resolver;
  process.env.SMTP_URL = smtp.url;
  resetConfig();
  resetSafetyChecker();
});

afterAll(async () => {
  closeEmail();
  await Promise.all([dns.close(), smtp.close()]);
  delete process.env.SMTP_URL;
  delete process.env.WEBHOOK_PRIVATE_NETWORKS;
  resetConfig();
});

beforeEach(async () => {
  // The receiver runs on 127.0.0.1, as a self-hosted operator's own network would.
  process.env.WEBHOOK_PRIVATE_NETWORKS = "127.0.0.0/8";
  resetConfig();
  now = Date.now();
  setClock({ now: () => now });
  receiver = await startWebhookReceiver();
  // A pass sends the whole outbox: messages an earlier test left for its closed receiver would fail in this one's totals.
  await db().webhookDelivery.deleteMany({});
});

afterEach(async () => {
  setClock(undefined);
  await receiver.close();
});

async function addWebhook(owner: TestUser, events: string[], url = receiver.url) {
  const created = await call("POST", "/api/webhooks", { token: owner.token, body: { url, events } });
  expect(created.status, created.text).toBe(201);
  receiver.secret = created.body.secret;
  return created.body as { id: string; secret: string };
}

async function createLink(owner: TestUser, destination = `https://example.com/hooked/${Math.random()}`) {
  const created = await call("POST", "/api/links", { token: owner.token, body: { destination } });
  expect(created.status, created.text).toBe(201);
  return created.body as { id: string; slug: string };
}

/** What differs between two test outcomes: the message's id and when it was sent. */
const pick = ({ message_id, attempted_at }: { message_id: string; attempted_at: number }) => ({ message_id, attempted_at });

/** Runs delivery passes until nothing is due now (each pass claims a bounded batch). */
async function deliverDue() {
  for (;;) {
    const totals = await runWebhookDeliveries();
    if (totals.attempted === 0) return;
  }
}

/** Visits the short link this many times, a millisecond apart, then writes the scans as one batch. */
async function scanOneByOne(slug: string, visits: number) {
  for (let index = 0; index < visits; index++) {
    now += 1;
    await visit(`/${slug}`, { headers: { "user-agent": `Mozilla/5.0 (iPhone) visit at ${now}` } });
  }
  await scanBuffer().flush();
}

describe("webhooks", () => {
  it("shows the Standard Webhooks secret once and keeps it sealed at rest", async () => {
    const owner = await newUser("hooks-secret");
    const created = await addWebhook(owner, ["link.created"]);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await call("GET", "/api/webhooks", { token: owner.token });
    expect(listed.body.webhooks).toHaveLength(1);
    expect(listed.text).not.toContain("secret");
    const fetched = await call("GET", `/api/webhooks/${created.id}`, { token: owner.token });
    expect(fetched.text).not.toContain(created.secret.slice(6));
    const row = await db().webhook.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.secretSealed).not.toContain(created.secret.slice(6, 30));

    const rotated = await call("POST", `/api/webhooks/${created.id}/rotate-secret`, { token: owner.token });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
  });

  it("sends signed link events, written with the change, that the receiver verifies", async () => {
    const owner = await newUser("hooks-links");
    await addWebhook(owner, ["link.created", "link.updated", "link.archived", "link.restored"]);
    const link = await createLink(owner);
    await call("PATCH", `/api/links/${link.id}`, { token: owner.token, body: { title: "Spring menu" } });
    await call("DELETE", `/api/links/${link.id}`, { token: owner.token });
    await call("DELETE", `/api/links/${link.id}`, { token: owner.token }); // archived already: no second message
    await call("POST", `/api/links/${link.id}/restore`, { token: owner.token });
    await deliverDue();

    expect(receiver.unverified).toBe(0);
    expect(receiver.received.map((message) => message.type)).toEqual([
      "link.created",
      "link.updated",
      "link.archived",
      "link.restored",
    ]);
    expect(receiver.received[1]!.data).toMatchObject({ id: link.id, title: "Spring menu" });
    expect(new Set(receiver.received.map((message) => message.id)).size).toBe(4);
    const log = await call(
      "GET",
      `/api/webhooks/${(await db().webhook.findFirstOrThrow({ where: { workspaceId: owner.workspaceId } })).id}/deliveries`,
      {
        token: owner.token,
      },
    );
    expect(log.body.attempts).toHaveLength(4);
    expect(log.body.attempts[0]).toMatchObject({
      event: "link.restored",
      attempt: 1,
      status_code: 204,
      delivered: true,
      next_retry_at: null,
    });
  });

  it("writes nothing for an endpoint that does not listen, and nothing for a change that rolled back", async () => {
    const owner = await newUser("hooks-quiet");
    const hook = await addWebhook(owner, ["link.archived"]);
    await createLink(owner);
    const refused = await call("POST", "/api/links", { token: owner.token, body: { destination: "http://10.0.0.1/" } });
    expect(refused.status).toBe(422);
    expect(await db().webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(0);
  });

  it("announces a link's status changes: released from quarantine, moved to abuse by an operator, and back", async () => {
    process.env.OPERATOR_TOKEN = OPERATOR_TOKEN;
    resetConfig();
    try {
      const owner = await newUser("hooks-status");
      await addWebhook(owner, ["link.status_changed"]);
      const link = await createLink(owner);
      // Two clean checks counted, a week in quarantine: the next counted check releases it.
      await db().link.update({
        where: { id: link.id },
        data: { cleanChecks: 2, quarantinedAt: new Date(now - 8 * 24 * 60 * 60 * 1000), lastCountedCheckAt: null },
      });
      expect((await recheckLinks({ quarantinedLimit: 10_000, activeSample: 0 })).released).toBeGreaterThanOrEqual(1);
      const toAbuse = await call("PUT", `/api/operator/links/${link.id}/status`, {
        token: OPERATOR_TOKEN,
        body: { status: 2, reason: "phishing" },
      });
      expect(toAbuse.status, toAbuse.text).toBe(200);
      expect(
        (await call("PUT", `/api/operator/links/${link.id}/status`, { token: OPERATOR_TOKEN, body: { status: 0 } })).status,
      ).toBe(200);
      await deliverDue();
      expect(receiver.unverified).toBe(0);
      expect(receiver.received.map((message) => [message.type, message.data.id, message.data.status])).toEqual([
        ["link.status_changed", link.id, 0],
        ["link.status_changed", link.id, 2],
        ["link.status_changed", link.id, 0],
      ]);
    } finally {
      delete process.env.OPERATOR_TOKEN;
      resetConfig();
    }
  });

  it("announces domains verified and failed, members joined and removed, and imports finished", async () => {
    const owner = await newUser("hooks-others");
    await addWebhook(owner, ["domain.verified", "domain.failed", "member.joined", "member.removed", "import.finished"]);

    const hostname = `go.hooks-${Date.now()}.com`;
    const added = await call("POST", "/api/domains", { token: owner.token, body: { hostname } });
    dns.set(`_permalink.${hostname}`, { txt: [added.body.dns.find((record: { type: string }) => record.type === "TXT").value] });
    dns.set(hostname, { cname: "s.test.example" });
    expect((await call("POST", `/api/domains/${added.body.id}/verify`, { token: owner.token })).body.verified).toBe(true);
    await call("POST", `/api/domains/${added.body.id}/verify`, { token: owner.token }); // still right: nothing new
    dns.set(hostname, { cname: "parked.registrar-example.net" });
    await call("POST", `/api/domains/${added.body.id}/verify`, { token: owner.token });
    await call("POST", `/api/domains/${added.body.id}/verify`, { token: owner.token }); // the same failure: told once

    const invitee = `hooks-invitee-${Date.now()}@example.com`;
    expect((await call("POST", "/api/members", { token: owner.token, body: { email: invitee, role: "member" } })).status).toBe(
      201,
    );
    const token = /\/invite\/([A-Za-z0-9_-]{43})/.exec((await smtp.messageTo(invitee)).mail.text!)![1]!;
    const joined = await call("POST", `/api/invitations/${token}/accept`, { token: await sessionFor(invitee) });
    expect(joined.status).toBe(200);
    expect((await call("DELETE", `/api/members/${joined.body.member.id}`, { token: owner.token })).status).toBe(200);

    const started = await call("POST", "/api/imports", {
      token: owner.token,
      rawBody: new TextEncoder().encode("long_url\nhttps://example.com/imported\n"),
      headers: { "content-type": "text/csv" },
    });
    await runImport(started.body.id);
    // The job may have been running already (it starts with the request): wait for it to finish.
    await expect
      .poll(async () => (await call("GET", `/api/imports/${started.body.id}`, { token: owner.token })).body.status)
      .toBe("done");

    await deliverDue();
    expect(receiver.unverified).toBe(0);
    expect(receiver.received.map((message) => message.type)).toEqual([
      "domain.verified",
      "domain.failed",
      "member.joined",
      "member.removed",
      "import.finished",
    ]);
    expect(receiver.received[0]!.data).toMatchObject({ id: added.body.id, hostname, verified: true });
    expect(receiver.received[1]!.data).toMatchObject({ id: added.body.id, hostname_status: "misconfigured" });
    expect(receiver.received[2]!.data).toMatchObject({
      id: joined.body.member.id,
      email: invitee,
      role: "member",
      status: "active",
    });
    expect(receiver.received[3]!.data).toMatchObject({ id: joined.body.member.id, email: invitee });
    expect(receiver.received[4]!.data).toMatchObject({ id: started.body.id, status: "done", created: 1 });
  });

  it("retries with backoff under the same webhook-id, then disables the endpoint and e-mails owners and admins once", async () => {
    const owner = await newUser("hooks-retry");
    const admin = await newUser("hooks-retry-admin");
    await joinWorkspace(admin, owner.workspaceId, "admin");
    const hook = await addWebhook(owner, ["link.created"]);
    receiver.status = 500;
    await createLink(owner);
    await createLink(owner);

    await deliverDue();
    expect(receiver.received).toHaveLength(2);
    const first = await call("GET", `/api/webhooks/${hook.id}/deliveries`, { token: owner.token });
    expect(first.body.attempts[0]).toMatchObject({
      attempt: 1,
      status_code: 500,
      delivered: false,
      next_retry_at: now + RETRY_DELAYS_MS[0]!,
    });

    // Not due yet: nothing is sent.
    now += RETRY_DELAYS_MS[0]! - 1000;
    await deliverDue();
    expect(receiver.received).toHaveLength(2);

    for (const delay of RETRY_DELAYS_MS) {
      now += delay;
      await deliverDue();
    }
    // The first message's last retry failed and disabled the endpoint: the second's last attempt waits for it.
    expect(receiver.received).toHaveLength(2 * MAX_ATTEMPTS - 1);
    expect(receiver.unverified).toBe(0);
    const [firstId, secondId] = [...new Set(receiver.received.map((message) => message.id))];
    expect(receiver.received.filter((message) => message.id === firstId)).toHaveLength(MAX_ATTEMPTS);
    expect(receiver.received.filter((message) => message.id === secondId)).toHaveLength(MAX_ATTEMPTS - 1);

    const disabled = await call("GET", `/api/webhooks/${hook.id}`, { token: owner.token });
    expect(disabled.body).toMatchObject({ disabled: true, disabled_at: now });
    const notices = smtp.messages.filter((message) => message.mail.subject?.includes(receiver.url));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.envelopeTo.sort()).toEqual([owner.email, admin.email].sort());

    // Disabled: nothing is written or sent for it; enabled again, what waited and the next event are sent.
    await createLink(owner);
    now += 60_000;
    await deliverDue();
    expect(receiver.received).toHaveLength(2 * MAX_ATTEMPTS - 1);
    receiver.status = 200;
    await call("PATCH", `/api/webhooks/${hook.id}`, { token: owner.token, body: { disabled: false } });
    await createLink(owner);
    await deliverDue();
    expect(receiver.received).toHaveLength(2 * MAX_ATTEMPTS + 1);
    expect(receiver.received.at(-2)!.id).toBe(secondId);
    expect(smtp.messages.filter((message) => message.mail.subject?.includes(receiver.url))).toHaveLength(1);
  });

  it("retries a message now on request, with the same webhook-id, and refuses a delivered one", async () => {
    const owner = await newUser("hooks-retry-now");
    const hook = await addWebhook(owner, ["link.created"]);
    receiver.status = 500;
    await createLink(owner);
    await deliverDue();
    expect(receiver.received).toHaveLength(1);
    const messageId = receiver.received[0]!.id;

    receiver.status = 204;
    const retried = await call("POST", `/api/webhooks/${hook.id}/deliveries/${messageId}/retry`, { token: owner.token });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toEqual({ message_id: messageId, next_retry_at: now });
    await deliverDue();
    expect(receiver.received.map((message) => message.id)).toEqual([messageId, messageId]);
    expect(receiver.unverified).toBe(0);

    const again = await call("POST", `/api/webhooks/${hook.id}/deliveries/${messageId}/retry`, { token: owner.token });
    expect(again.status).toBe(409);
    const unknown = await call("POST", `/api/webhooks/${hook.id}/deliveries/msg_nosuchmessage00000/retry`, {
      token: owner.token,
    });
    expect(unknown.status).toBe(404);
  });

  it("sends inside only the networks the operator named in WEBHOOK_PRIVATE_NETWORKS", async () => {
    process.env.WEBHOOK_PRIVATE_NETWORKS = "10.20.0.0/16";
    resetConfig();
    dns.set(TEST_ZONE.privateName, { a: ["10.0.0.7"] });
    const owner = await newUser("hooks-allow-list");
    for (const url of [receiver.url, "http://10.0.0.7/hooks", `http://${TEST_ZONE.privateName}/`]) {
      const refused = await call("POST", "/api/webhooks", { token: owner.token, body: { url, events: ["link.created"] } });
      expect(refused.status, url).toBe(422);
      expect(refused.body.error).toMatch(/^The webhook URL/);
    }
    const inside = await call("POST", "/api/webhooks", {
      token: owner.token,
      body: { url: "http://10.20.3.4/hooks", events: ["link.created"] },
    });
    expect(inside.status, inside.text).toBe(201);
  });

  it("refuses an internal receiver URL in any encoding", async () => {
    delete process.env.WEBHOOK_PRIVATE_NETWORKS;
    resetConfig();
    dns.set(TEST_ZONE.privateName, { a: ["10.0.0.7"] });
    const owner = await newUser("hooks-internal");
    for (const url of [
      receiver.url,
      "http://[::ffff:127.0.0.1]/hooks",
      "http://2130706433/",
      `http://${TEST_ZONE.privateName}/`,
      "http://169.254.169.254/",
    ]) {
      const refused = await call("POST", "/api/webhooks", { token: owner.token, body: { url, events: ["link.created"] } });
      expect(refused.status, url).toBe(422);
      expect(refused.body.error).toMatch(/webhook/i);
    }
    const notHttp = await call("POST", "/api/webhooks", {
      token: owner.token,
      body: { url: "ftp://example.com/", events: ["link.created"] },
    });
    expect(notHttp.status).toBe(422);
  });

  it("never allows a cloud metadata endpoint, even inside the networks the operator opened", async () => {
    process.env.WEBHOOK_PRIVATE_NETWORKS = "127.0.0.0/8, 100.64.0.0/10, fc00::/7, 169.254.0.0/16";
    resetConfig();
    const owner = await newUser("hooks-metadata");
    // Alibaba's sits in the CGNAT range and AWS's IPv6 one in the unique-local range, both of which the setting opens.
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://100.100.100.200/latest/meta-data/",
      "http://[fd00:ec2::254]/latest/meta-data/",
      "http://[::ffff:169.254.169.254]/",
      "http://metadata.google.internal/computeMetadata/v1/",
    ]) {
      const refused = await call("POST", "/api/webhooks", { token: owner.token, body: { url, events: ["link.created"] } });
      expect(refused.status, url).toBe(422);
    }
    const name = `metadata-later-${Date.now()}.example.net`;
    dns.set(name, { a: [TEST_ZONE.publicAddress] });
    const hook = await addWebhook(owner, ["link.created"], `http://${name}:${receiver.port}/hooks`);
    dns.set(name, { a: ["100.100.100.200"] });
    await createLink(owner);
    await deliverDue();
    const log = await call("GET", `/api/webhooks/${hook.id}/deliveries`, { token: owner.token });
    expect(log.body.attempts[0]).toMatchObject({ delivered: false, status_code: null });
    expect(log.body.attempts[0].error).toMatch(/internal or private address/);
  });

  it("refuses to connect to a name that rebinds to 127.0.0.1 after the webhook was saved", async () => {
    delete process.env.WEBHOOK_PRIVATE_NETWORKS;
    resetConfig();
    const owner = await newUser("hooks-rebind");
    const name = `rebind-${Date.now()}.example.net`;
    dns.set(name, { a: [TEST_ZONE.publicAddress] });
    const hook = await addWebhook(owner, ["link.created"], `http://${name}:${receiver.port}/hooks`);
    dns.set(name, { a: ["127.0.0.1"] });
    await createLink(owner);
    await deliverDue();
    expect(receiver.received).toHaveLength(0);
    const log = await call("GET", `/api/webhooks/${hook.id}/deliveries`, { token: owner.token });
    expect(log.body.attempts[0]).toMatchObject({ attempt: 1, status_code: null, delivered: false });
    expect(log.body.attempts[0].error).toMatch(/internal or private address/);
  });

  it("sends a ping on test and answers only whether it was delivered, the same whatever failed", async () => {
    const owner = await newUser("hooks-ping");
    const hook = await addWebhook(owner, ["link.created"]);
    const tested = await call("POST", `/api/webhooks/${hook.id}/test`, { token: owner.token });
    expect(tested.body).toMatchObject({ event: "ping", delivered: true, status_code: 204, attempt: 1, error: null });
    expect(receiver.received.map((message) => message.type)).toEqual(["ping"]);
    expect(receiver.unverified).toBe(0);

    // A receiver answering 410, a redirect, and a closed port look alike: the test is no port scanner.
    const closed = await addWebhook(owner, ["link.created"], "http://127.0.0.1:1/hooks");
    const outcomes = [];
    for (const status of [410, 307]) {
      receiver.status = status;
      outcomes.push((await call("POST", `/api/webhooks/${hook.id}/test`, { token: owner.token })).body);
    }
    outcomes.push((await call("POST", `/api/webhooks/${closed.id}/test`, { token: owner.token })).body);
    const notDelivered = { event: "ping", attempt: 1, delivered: false, status_code: null, duration_ms: 0, next_retry_at: null };
    for (const outcome of outcomes) expect(outcome).toEqual({ ...notDelivered, ...pick(outcome), error: TEST_NOT_DELIVERED });
    const log = await call("GET", `/api/webhooks/${hook.id}/deliveries`, { token: owner.token });
    expect(log.body.attempts.slice(0, 2).map((attempt: { error: string }) => attempt.error)).toEqual([
      TEST_NOT_DELIVERED,
      TEST_NOT_DELIVERED,
    ]);
  });

  it("fails an attempt the receiver does not answer within 10 s, and says so in the delivery log", async () => {
    const owner = await newUser("hooks-timeout");
    const hook = await addWebhook(owner, ["link.created"]);
    receiver.delayMs = 12_000;
    await createLink(owner);
    await runWebhookDeliveries();
    const log = await call("GET", `/api/webhooks/${hook.id}/deliveries`, { token: owner.token });
    expect(log.body.attempts[0]).toMatchObject({
      delivered: false,
      status_code: null,
      error: "The receiver did not answer within 10 seconds.",
    });
    expect(log.body.attempts[0].duration_ms).toBeGreaterThanOrEqual(10_000);
    expect(log.body.attempts[0].duration_ms).toBeLessThan(11_000);
  }, 30_000);

  it("does not follow a redirect", async () => {
    const owner = await newUser("hooks-redirect");
    const hook = await addWebhook(owner, ["link.created"]);
    receiver.status = 307;
    await createLink(owner);
    await runWebhookDeliveries();
    const log = await call("GET", `/api/webhooks/${hook.id}/deliveries`, { token: owner.token });
    expect(log.body.attempts[0]).toMatchObject({ delivered: false, status_code: 307 });
    expect(log.body.attempts[0].error).toMatch(/redirect/);
    expect(receiver.received).toHaveLength(1);
  });

  it("sends a link's scans coalesced in data.scans, never an address", async () => {
    const owner = await newUser("hooks-scans");
    await addWebhook(owner, ["link.scanned"]);
    const link = await createLink(owner);
    for (let index = 0; index < 5; index++) {
      const answer = await visit(`/${link.slug}`, {
        headers: { "user-agent": `Mozilla/5.0 (iPhone) visit ${index}` },
        peer: "198.51.100.7",
      });
      expect(answer.status).toBeLessThan(400);
    }
    await scanBuffer().flush();
    await deliverDue();
    expect(receiver.received).toHaveLength(1);
    const [message] = receiver.received;
    expect(message!.type).toBe("link.scanned");
    expect(message!.data.link_id).toBe(link.id);
    expect(message!.data.scans.reduce((sum: number, scan: { count: number }) => sum + scan.count, 0)).toBe(5);
    expect(message!.body).not.toContain("198.51.100.7");
    expect(receiver.unverified).toBe(0);
  });

  it("joins a link's later scans to its message not tried yet, in order, and never changes one a receiver may have seen", async () => {
    const owner = await newUser("hooks-scans-join");
    const hook = await addWebhook(owner, ["link.scanned"]);
    const link = await createLink(owner);
    const scanBatch = (visits: number) => scanOneByOne(link.slug, visits);
    const times = (message: { data: { scans: { occurred_at: number }[] } }) => message.data.scans.map((scan) => scan.occurred_at);

    // Three batches while nothing was sent yet: one message, the scans in the order they were made.
    await scanBatch(2);
    await scanBatch(3);
    await scanBatch(1);
    expect(await db().webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(1);

    // Tried once (and failed): it is never changed again, so the next batch makes a message of its own.
    receiver.status = 500;
    await deliverDue();
    await scanBatch(2);
    expect(await db().webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(2);

    receiver.status = 204;
    now += RETRY_DELAYS_MS[0]!;
    await deliverDue();
    expect(receiver.unverified).toBe(0);
    const [failed, retried, second] = receiver.received;
    expect(retried!.id).toBe(failed!.id);
    expect(retried!.body).toBe(failed!.body);
    expect(times(retried!)).toHaveLength(6);
    expect(times(retried!)).toEqual(times(retried!).toSorted((a, b) => a - b));
    expect(times(second!)).toHaveLength(2);
    expect(Math.min(...times(second!))).toBeGreaterThan(Math.max(...times(retried!)));
  });

  it("keeps each link.scanned message within MAX_SCAN_MESSAGE_BYTES: scans that would not fit start a new one", async () => {
    const owner = await newUser("hooks-scans-cap");
    const hook = await addWebhook(owner, ["link.scanned"]);
    const link = await createLink(owner);
    const scanBatch = (visits: number) => scanOneByOne(link.slug, visits);
    await scanBatch(1000);
    await scanBatch(1000);
    const messages = await db().webhookDelivery.findMany({ where: { webhookId: hook.id }, orderBy: { id: "asc" } });
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) expect(Buffer.byteLength(message.body)).toBeLessThanOrEqual(MAX_SCAN_MESSAGE_BYTES);
    const times = messages.flatMap((message) =>
      (JSON.parse(message.body).data.scans as { occurred_at: number }[]).map((scan) => scan.occurred_at),
    );
    expect(times).toHaveLength(2000);
    expect(times).toEqual(times.toSorted((a, b) => a - b));
  }, 30_000);

  it("sends a backlog in one pass, and an endpoint that fails holds up neither its other messages for long nor anyone else", async () => {
    const owner = await newUser("hooks-backlog");
    const other = await newUser("hooks-backlog-other");
    const failing = await startWebhookReceiver();
    try {
      const healthy = await addWebhook(owner, ["link.created"]);
      const healthySecret = healthy.secret;
      const broken = await call("POST", "/api/webhooks", {
        token: other.token,
        body: { url: failing.url, events: ["link.created"] },
      });
      failing.secret = broken.body.secret;
      failing.status = 500;
      receiver.secret = healthySecret;
      for (let index = 0; index < 5; index++) await createLink(other);
      for (let index = 0; index < 45; index++) await createLink(owner);

      const pass = await runWebhookDeliveries();
      // Every message to the healthy endpoint in one pass, though a round claims 20.
      expect(receiver.received).toHaveLength(45);
      expect(receiver.unverified).toBe(0);
      // The failing endpoint is tried once a pass: its other messages wait, still due and never tried.
      expect(failing.received).toHaveLength(1);
      expect(pass).toMatchObject({ delivered: 45, failed: 1 });
      const waiting = await db().webhookDelivery.findMany({ where: { webhookId: broken.body.id }, orderBy: { id: "asc" } });
      expect(waiting.map((delivery) => delivery.attempts)).toEqual([1, 0, 0, 0, 0]);
      expect(waiting.slice(1).every((delivery) => delivery.nextAttemptAt!.getTime() <= now)).toBe(true);

      // The next pass tries the next one, in the order they were written.
      await runWebhookDeliveries();
      expect(failing.received.map((message) => message.data.id)).toEqual(
        (await db().webhookDelivery.findMany({ where: { webhookId: broken.body.id }, orderBy: { id: "asc" }, take: 2 })).map(
          (delivery) => JSON.parse(delivery.body).data.id,
        ),
      );
    } finally {
      await failing.close();
    }
  });

  it("starts no attempt once a pass's time is up, and hands the rest back unsent, due as they were", async () => {
    const owner = await newUser("hooks-budget");
    const hook = await addWebhook(owner, ["link.created"]);
    for (let index = 0; index < 6; index++) await createLink(owner);
    receiver.delayMs = 400;
    await runWebhookDeliveries(500);
    const sent = receiver.received.length;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThan(6);
    const deliveries = await db().webhookDelivery.findMany({ where: { webhookId: hook.id }, orderBy: { id: "asc" } });
    expect(deliveries.map((delivery) => delivery.state)).toEqual([
      ...Array(sent).fill("delivered"),
      ...Array(6 - sent).fill("pending"),
    ]);
    for (const waiting of deliveries.slice(sent))
      expect(waiting).toMatchObject({ attempts: 0, nextAttemptAt: waiting.createdAt });
    receiver.delayMs = 0;
    await deliverDue();
    expect(receiver.received).toHaveLength(6);
  });

  it("keeps a message's retries when Retry now lands while a pass holds it, then hands it back unsent", async () => {
    const owner = await newUser("hooks-retry-claimed");
    const hook = await addWebhook(owner, ["link.created"]);
    await createLink(owner);
    await createLink(owner);
    const [, second] = await db().webhookDelivery.findMany({ where: { webhookId: hook.id }, orderBy: { id: "asc" } });
    receiver.delayMs = 300;
    // The pass claims both and sends the first; while it waits, the owner asks for the second now.
    const pass = runWebhookDeliveries(100);
    await expect.poll(() => receiver.inFlight).toBe(1);
    const retried = await call("POST", `/api/webhooks/${hook.id}/deliveries/${second!.messageId}/retry`, {
      token: owner.token,
    });
    expect(retried.status, retried.text).toBe(200);
    // The pass's time is up after the first: the second goes back unsent, its retries whole.
    await pass;
    expect(await db().webhookDelivery.findUniqueOrThrow({ where: { id: second!.id } })).toMatchObject({
      state: "pending",
      attempts: 0,
    });

    // Its first attempt fails as a first attempt does: retried later, the endpoint left enabled.
    receiver.delayMs = 0;
    receiver.status = 500;
    await runWebhookDeliveries();
    expect(receiver.received.filter((message) => message.id === second!.messageId)).toHaveLength(1);
    const endpoint = await call("GET", `/api/webhooks/${hook.id}`, { token: owner.token });
    expect(endpoint.body).toMatchObject({ disabled: false });
  });

  it("deletes a message delivered or failed for good a week after it was written, with its attempts, never a waiting one", async () => {
    const owner = await newUser("hooks-prune");
    const hook = await addWebhook(owner, ["link.created"]);
    for (let index = 0; index < 3; index++) await createLink(owner);
    const [delivered, failed, waiting] = await db().webhookDelivery.findMany({
      where: { webhookId: hook.id },
      orderBy: { id: "asc" },
    });
    receiver.status = 204;
    await runWebhookDeliveries();
    const old = new Date(now - FINISHED_KEPT_MS - 60_000);
    await db().webhookDelivery.update({ where: { id: delivered!.id }, data: { createdAt: old } });
    await db().webhookDelivery.update({ where: { id: failed!.id }, data: { createdAt: old, state: "failed" } });
    await db().webhookDelivery.update({
      where: { id: waiting!.id },
      data: { createdAt: old, state: "pending", nextAttemptAt: new Date(now + 60_000) },
    });
    const recent = await createLink(owner);
    await runWebhookDeliveries();

    const kept = await db().webhookDelivery.findMany({ where: { webhookId: hook.id }, orderBy: { id: "asc" } });
    expect(kept.map((delivery) => delivery.id)).toEqual([waiting!.id, kept[1]!.id]);
    expect(JSON.parse(kept[1]!.body).data.id).toBe(recent.id);
    expect(await db().webhookAttempt.count({ where: { deliveryId: { in: [delivered!.id, failed!.id] } } })).toBe(0);
    const log = await call("GET", `/api/webhooks/${hook.id}/deliveries`, { token: owner.token });
    expect(log.body.attempts.map((attempt: { message_id: string }) => attempt.message_id)).toEqual([
      kept[1]!.messageId,
      waiting!.messageId,
    ]);
  });

  it("keeps visits answering while a receiver takes 5 s for every message", async () => {
    const owner = await newUser("hooks-slow");
    await addWebhook(owner, ["link.scanned", "link.created"]);
    const link = await createLink(owner);
    receiver.delayMs = 5000;
    const pass = runWebhookDeliveries();
    await expect.poll(() => receiver.inFlight).toBe(1);
    const statuses: number[] = [];
    for (let chunk = 0; chunk < 10; chunk++) {
      const answers = await Promise.all(Array.from({ length: 1000 }, () => visit(`/${link.slug}`)));
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses).toHaveLength(10_000);
    // Every visit was answered while the receiver still held the message.
    expect(receiver.inFlight).toBe(1);
    expect(statuses.every((status) => status < 400)).toBe(true);
    await scanBuffer().flush();
    await pass;
    expect(receiver.received).toHaveLength(1);
  }, 30_000);
});

describe("a person's webhooks leave with them", () => {
  /** A team owned by a fresh user, with an admin, and the call options that act there as each. */
  async function teamWithAdmin(label: string) {
    const owner = await newUser(label, { subscription: false });
    const created = await call("POST", "/api/workspaces", { token: owner.token, body: { name: `${label} team` } });
    expect(created.status).toBe(201);
    const workspaceId = created.body.id as string;
    await subscribe({ userId: owner.userId, workspaceId });
    const asOwner = { token: owner.token, headers: { "x-workspace-id": workspaceId } };
    const admin = await newUser(`${label}-admin`);
    const asAdmin = await joinWorkspace(admin, workspaceId, "admin");
    const members = (await call("GET", "/api/members", asOwner)).body.members as { id: string; email: string }[];
    const adminId = members.find((member) => member.email === admin.email)!.id;
    return { owner, asOwner, admin, asAdmin, adminId };
  }

  async function addHookAs(caller: { token: string; headers: Record<string, string> }, events: string[]) {
    const created = await call("POST", "/api/webhooks", { ...caller, body: { url: receiver.url, events } });
    expect(created.status, created.text).toBe(201);
    return created.body as { id: string; secret: string };
  }

  it("disables a removed admin's endpoints, flags the secrets they saw, says so and e-mails the owners", async () => {
    const { owner, asOwner, admin, asAdmin, adminId } = await teamWithAdmin("hooks-removed");
    const theirs = await addHookAs(asAdmin, ["link.created", "member.removed"]);
    receiver.secret = theirs.secret;
    const team = await addHookAs(asOwner, ["link.archived"]);
    const rotated = await call("POST", `/api/webhooks/${team.id}/rotate-secret`, asAdmin);
    expect(rotated.status).toBe(200);
    const untouched = await addHookAs(asOwner, ["link.archived"]);

    const removed = await call("DELETE", `/api/members/${adminId}`, asOwner);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      id: adminId,
      api_key_revoked: false,
      webhooks_disabled: [theirs.id],
      webhooks_rotation_due: expect.arrayContaining([theirs.id, team.id]),
    });
    expect(removed.body.webhooks_rotation_due).toHaveLength(2);

    const link = await call("POST", "/api/links", { ...asOwner, body: { destination: "https://example.com/after-removal" } });
    expect(link.status).toBe(201);
    await deliverDue();
    expect(receiver.received).toEqual([]);

    const listed = (await call("GET", "/api/webhooks", asOwner)).body.webhooks as {
      id: string;
      disabled: boolean;
      rotation_due: boolean;
    }[];
    const byId = (id: string) => listed.find((webhook) => webhook.id === id)!;
    expect(byId(theirs.id)).toMatchObject({ disabled: true, rotation_due: true });
    expect(byId(team.id)).toMatchObject({ disabled: false, rotation_due: true });
    expect(byId(untouched.id)).toMatchObject({ disabled: false, rotation_due: false });
    const renewed = await call("POST", `/api/webhooks/${team.id}/rotate-secret`, asOwner);
    expect(renewed.body.rotation_due).toBe(false);

    const notice = await smtp.messageTo(owner.email);
    expect(notice.mail.subject).toBe("Webhooks of your workspace were disabled or need a new secret");
    expect(notice.mail.text).toContain(admin.email);
    expect(notice.mail.text).toContain(theirs.id);
    expect(notice.mail.text).toContain(team.id);
    expect(notice.mail.text).not.toContain(untouched.id);
  });

  it("disables the endpoints of an admin demoted to member, and of one made with the key they claimed", async () => {
    const { asOwner, asAdmin, adminId } = await teamWithAdmin("hooks-demoted");
    const theirs = await addHookAs(asAdmin, ["link.created"]);
    const claimed = await call("POST", "/api/billing/claim", asAdmin);
    expect(claimed.status, claimed.text).toBe(200);
    const viaKey = await addHookAs({ token: claimed.body.api_key, headers: {} }, ["link.created"]);
    const kept = await call("PATCH", `/api/members/${adminId}`, { ...asOwner, body: { role: "owner" } });
    expect(kept.body).toMatchObject({ webhooks_disabled: [], webhooks_rotation_due: [] });

    const demoted = await call("PATCH", `/api/members/${adminId}`, { ...asOwner, body: { role: "member" } });
    expect(demoted.status).toBe(200);
    expect(demoted.body).toMatchObject({ role: "member", api_key_revoked: true });
    expect([...demoted.body.webhooks_disabled].sort()).toEqual([theirs.id, viaKey.id].sort());
  });
});
