import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

const BIDI_SPOOF = "Invoice \u202egpj.exe\u202c";
const BIDI_SENTENCE = /must not contain bidirectional control characters/;

let user: TestUser;
let receiver: WebhookReceiver;

beforeAll(async () => {
  process.env.WEBHOOK_PRIVATE_NETWORKS = "127.0.0.0/8";
  resetConfig();
  receiver = await startWebhookReceiver();
  user = await newUser("stored-text");
});

afterAll(async () => {
  await receiver.close();
  delete process.env.WEBHOOK_PRIVATE_NETWORKS;
  resetConfig();
});

describe("stored text refuses bidirectional controls", () => {
  it.each([
    ["a workspace name", "POST", "/api/workspaces", { name: BIDI_SPOOF }],
    ["a link title", "POST", "/api/links", { destination: "https://example.com/bidi-title", title: BIDI_SPOOF }],
    ["a link's tag", "POST", "/api/links", { destination: "https://example.com/bidi-tag", tags: ["a\u2066b"] }],
    ["a tag name", "POST", "/api/tags", { name: "menus\u200f" }],
    ["a UTM template", "POST", "/api/utm-templates", { name: "Spring", utm_campaign: "x\u202ay" }],
  ] as const)("in %s: 400 with a sentence", async (_what, method, path, body) => {
    const refused = await call(method, path, { token: user.token, body });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toMatch(BIDI_SENTENCE);
  });

  it("in a webhook's description", async () => {
    const body = { url: receiver.url, events: ["link.created"], description: BIDI_SPOOF };
    const refused = await call("POST", "/api/webhooks", { token: user.token, body });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(BIDI_SENTENCE);
    expect(await db().webhook.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("in a rename, and in a title changed later", async () => {
    const link = await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/bidi-later" } });
    const retitled = await call("PATCH", `/api/links/${link.body.id}`, { token: user.token, body: { title: BIDI_SPOOF } });
    expect(retitled.status).toBe(400);
    const renamed = await call("PATCH", "/api/workspaces", { token: user.token, body: { name: BIDI_SPOOF } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.error).toMatch(BIDI_SENTENCE);
  });
});

describe("workspace names, quoted in e-mails, carry no IP address or defanged name", () => {
  it.each(["Reset at 192.0.2.10", "Login evil[.]example", "evil(dot)example support", "Admin [2001:db8::1]"])(
    "refuses %j with 400 and a sentence",
    async (name) => {
      const refused = await call("POST", "/api/workspaces", { token: user.token, body: { name } });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error).toMatch(/must not contain a web address, a domain name .* or an IP address/);
    },
  );

  it("keeps plain names with numbers and brackets", async () => {
    for (const name of ["Team 3.5 [beta]", "Standup 12:30"]) {
      const created = await call("POST", "/api/workspaces", { token: user.token, body: { name } });
      expect(created.status, created.text).toBe(201);
    }
  });
});
