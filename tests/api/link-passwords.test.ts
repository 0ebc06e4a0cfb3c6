import { scanBuffer } from "@/lib/analytics/scans";
import { db } from "@/lib/db/client";
import { runWebhookDeliveries } from "@/lib/webhooks/worker";
import { describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { editLink, linkEditWorld, listenTo } from "../support/link-edit-world";
import { visit } from "../support/visits";

const world = linkEditWorld();
const PASSWORD = "spring-2026";

async function scansOf(linkId: string): Promise<number> {
  await scanBuffer().flush();
  return db().scanEvent.count({ where: { linkId } });
}

describe("password-protected links", () => {
  it("take a password on create that is stored as a salted hash and never shown, only password_protected", async () => {
    const user = await newUser("password-create");
    const created = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/secret-menu", title: "Staff menu", password: PASSWORD },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.password_protected).toBe(true);
    expect(created.text).not.toContain(PASSWORD);
    expect(created.text).not.toMatch(/scrypt|password_hash|passwordHash/);
    const row = await db().link.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(row.passwordHash).not.toContain(PASSWORD);
    const read = await call("GET", `/api/links/${created.body.id}`, { token: user.token });
    expect(read.body.password_protected).toBe(true);
    expect(read.text).not.toMatch(/scrypt/);
    const exported = await call("GET", "/api/links/export?format=json", { token: user.token });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.links[0]).toMatchObject({ id: created.body.id, password_protected: true });
    expect(exported.text).not.toMatch(/scrypt/);

    // A second link to the same destination is a link of its own: neither is handed out for the other.
    const plain = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/secret-menu" },
    });
    expect([plain.status, plain.body.password_protected]).toEqual([201, false]);
    expect(plain.body.id).not.toBe(created.body.id);
    const again = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/secret-menu" },
    });
    expect([again.status, again.body.id]).toEqual([200, plain.body.id]);
  });

  it("refuse a password too short, too long or with control characters, in a sentence", async () => {
    const user = await newUser("password-refusals");
    for (const password of ["abc", "x".repeat(201), "tab\there"]) {
      const refused = await call("POST", "/api/links", {
        token: user.token,
        body: { destination: "https://example.com/a", password },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/"password" is invalid: (must be at|may not contain)/);
    }
  });

  it("ask a visitor for the password, redirect on the right one with a pass, and count the scan only then", async () => {
    const user = await newUser("password-visits");
    const created = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/secret-menu", title: "Staff <menu>", password: PASSWORD },
    });
    const path = `/${created.body.slug}?table=4`;
    await db().link.update({ where: { id: created.body.id }, data: { status: 0 } });

    const form = await visit(path);
    expect(form.status).toBe(401);
    expect(form.body).toContain("<title>Staff &#60;menu&#62;</title>");
    expect(form.body).toContain('name="password" type="password"');
    expect(form.headers["Content-Security-Policy"]).toBe("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
    expect(form.body).not.toMatch(/<script|_next/);

    const wrong = await visit(path, { headers: { "Link-Password": "not it" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain("That password is not right.");
    expect(await scansOf(created.body.id)).toBe(0);

    const right = await visit(path, { headers: { "Link-Password": PASSWORD } });
    expect(right.status).toBe(302);
    expect(right.headers.Location).toBe("https://example.com/secret-menu?table=4");
    const setCookie = right.headers["Set-Cookie"]!;
    expect(setCookie).toMatch(
      new RegExp(`^permalink_pass=[\\w.-]+; Path=/${created.body.slug}; Max-Age=1800; HttpOnly; SameSite=Lax$`),
    );
    expect(await scansOf(created.body.id)).toBe(1);

    const withPass = await visit(path, { headers: { Cookie: setCookie.split(";")[0]! } });
    expect(withPass).toMatchObject({ status: 302, headers: { Location: "https://example.com/secret-menu?table=4" } });
    expect(withPass.headers["Set-Cookie"]).toBeUndefined();
    expect(await scansOf(created.body.id)).toBe(2);
  });

  it("are set, changed and removed with PATCH, announced as link.updated, and a new password ends the old passes", async () => {
    const user = await newUser("password-patch");
    await listenTo(world, user, ["link.updated"]);
    const created = await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/doors" } });
    const path = `/${created.body.slug}`;
    expect((await visit(path)).status).toBe(302);

    const set = await editLink(user, created.body.id, { password: PASSWORD });
    expect([set.status, set.body.password_protected], set.text).toEqual([200, true]);
    expect((await visit(path)).status).toBe(401);
    const pass = (await visit(path, { headers: { "Link-Password": PASSWORD } })).headers["Set-Cookie"]!.split(";")[0]!;

    const changed = await editLink(user, created.body.id, { password: "summer-2026" });
    expect(changed.status, changed.text).toBe(200);
    expect((await visit(path, { headers: { Cookie: pass } })).status).toBe(401);
    expect((await visit(path, { headers: { "Link-Password": PASSWORD } })).status).toBe(401);
    expect((await visit(path, { headers: { "Link-Password": "summer-2026" } })).status).toBe(302);

    const removed = await editLink(user, created.body.id, { password: null });
    expect([removed.status, removed.body.password_protected]).toEqual([200, false]);
    expect((await visit(path)).status).toBe(302);
    // Removing a password a link does not have changes nothing, and announces nothing.
    expect((await editLink(user, created.body.id, { password: null })).status).toBe(200);

    while ((await runWebhookDeliveries()).attempted > 0);
    expect(world.receiver.unverified).toBe(0);
    expect(world.receiver.received.map((message) => [message.type, message.data.password_protected])).toEqual([
      ["link.updated", true],
      ["link.updated", true],
      ["link.updated", false],
    ]);
    expect(JSON.stringify(world.receiver.received)).not.toMatch(/scrypt|spring-2026|summer-2026/);
  });

  it("limit guesses at one code with a sentence and Retry-After, and for at most a minute", async () => {
    const user = await newUser("password-guesses");
    const created = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/vault", password: PASSWORD },
    });
    const path = `/${created.body.slug}`;
    // Ten guesses a minute at a code: one network spends them all.
    for (let guess = 0; guess < 10; guess++) {
      const answer = await visit(path, { headers: { "Link-Password": `guess-${guess}` }, peer: "198.51.100.7" });
      expect(answer.status).toBe(401);
    }
    const limited = await visit(path, { headers: { "Link-Password": PASSWORD }, peer: "198.51.100.7" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["Retry-After"])).toBeGreaterThan(0);
    expect(limited.body).toMatch(/Too many password attempts for this link just now; try again in \d+ seconds\./);
    // A minute's window: the right password is never held back longer than that.
    expect(Number(limited.headers["Retry-After"])).toBeLessThanOrEqual(60);

    // The guesser cannot lock out everyone else: another network still has its first tries, and
    // the right password gets in; beyond those tries the spent code answers 429 there too.
    const visitor = await visit(path, { headers: { "Link-Password": PASSWORD }, peer: "203.0.113.5" });
    expect(visitor.status).toBe(302);
    for (let guess = 0; guess < 3; guess++) {
      const answer = await visit(path, { headers: { "Link-Password": `other-${guess}` }, peer: "192.0.2.9" });
      expect(answer.status).toBe(401);
    }
    expect((await visit(path, { headers: { "Link-Password": "other-3" }, peer: "192.0.2.9" })).status).toBe(429);
  });

  it("are taken by bulk create, item by item", async () => {
    const user = await newUser("password-bulk");
    const bulk = await call("POST", "/api/links/bulk", {
      token: user.token,
      body: {
        links: [
          { destination: "https://example.com/bulk-a", password: PASSWORD },
          { destination: "https://example.com/bulk-b" },
          { destination: "https://example.com/bulk-c", password: "no" },
        ],
      },
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(
      bulk.body.results.map((result: { status: number; link?: { password_protected: boolean } }) => [
        result.status,
        result.link?.password_protected,
      ]),
    ).toEqual([
      [201, true],
      [201, false],
      [400, undefined],
    ]);
  });
});
