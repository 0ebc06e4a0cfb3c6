import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { closeEmail } from "@/lib/email";
import { log } from "@/lib/log";
import { describeInvitation } from "@/lib/members/invitations";
import { ownMemberId } from "@/lib/members/service";
import { createHash } from "node:crypto";
import { type AddressInfo, createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { call, joinWorkspace, newUser, sessionFor, subscribe, type TestUser } from "../support/api";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";

let smtp: TestSmtpServer;

beforeAll(async () => {
  smtp = await startSmtpServer();
  process.env.SMTP_URL = smtp.url;
  process.env.EMAIL_FROM = "Permalink Teams <teams@permalink.test>";
  resetConfig();
});

afterAll(async () => {
  closeEmail();
  await smtp.close();
  delete process.env.SMTP_URL;
  delete process.env.EMAIL_FROM;
  resetConfig();
});

afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
  resetConfig();
});

type Caller = { token: string; headers: Record<string, string> };

/** A team workspace owned by a fresh user, subscribed, and the call options that act there. */
async function teamOf(label: string): Promise<{ owner: TestUser; workspaceId: string; asOwner: Caller }> {
  const owner = await newUser(label, { subscription: false });
  const created = await call("POST", "/api/workspaces", { token: owner.token, body: { name: `${label} team` } });
  expect(created.status).toBe(201);
  await subscribe({ userId: owner.userId, workspaceId: created.body.id });
  return { owner, workspaceId: created.body.id, asOwner: { token: owner.token, headers: { "x-workspace-id": created.body.id } } };
}

const uniqueAddress = (label: string) => `${label}-${process.pid}-${Math.random().toString(36).slice(2)}@example.com`;

/** The invitation link in the captured message's text, as a mail client shows it. */
function invitationLinkIn(text: string): URL {
  const match = /Accept the invitation: (\S+)/.exec(text);
  if (!match) throw new Error(`No invitation link in:\n${text}`);
  return new URL(match[1]!);
}

function tokenOf(link: URL): string {
  expect(link.origin).toBe("http://app.test.example");
  const [, invite, token] = link.pathname.split("/");
  expect(invite).toBe("invite");
  return token!;
}

describe("team workspaces", () => {
  it("creates a team workspace with the caller as owner, lists it with the role, and renames it", async () => {
    const user = await newUser("creator", { subscription: false });
    const created = await call("POST", "/api/workspaces", { token: user.token, body: { name: "  Marketing  " } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^ws_/),
      name: "Marketing",
      kind: "team",
      role: "owner",
      created_at: expect.any(Number),
    });
    const listed = await call("GET", "/api/workspaces", { token: user.token, headers: { "x-workspace-id": created.body.id } });
    expect(listed.body.workspace).toMatchObject({ id: created.body.id, kind: "team", role: "owner" });
    expect(listed.body.workspaces.map((workspace: { kind: string; role: string }) => [workspace.kind, workspace.role])).toEqual([
      ["personal", "owner"],
      ["team", "owner"],
    ]);
    const renamed = await call("PATCH", "/api/workspaces", {
      token: user.token,
      headers: { "x-workspace-id": created.body.id },
      body: { name: "Growth" },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: created.body.id, name: "Growth", role: "owner" });
  });

  it("refuses a blank or control-character name (400) and an API key (403)", async () => {
    const user = await newUser("namer");
    expect((await call("POST", "/api/workspaces", { token: user.token, body: { name: "   " } })).status).toBe(400);
    expect((await call("POST", "/api/workspaces", { token: user.token, body: { name: "a\u0007b" } })).status).toBe(400);
    const key = (await call("POST", "/api/billing/claim", { token: user.token })).body.api_key;
    const byKey = await call("POST", "/api/workspaces", { token: key, body: { name: "Elsewhere" } });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error).toMatch(/session token/);
    expect((await call("PATCH", "/api/workspaces", { token: key, body: { name: "Renamed" } })).status).toBe(403);
  });

  it("lets owners and admins rename, not members or viewers", async () => {
    const { workspaceId } = await teamOf("renames");
    const statuses = [];
    for (const role of ["admin", "member", "viewer"] as const) {
      const caller = await joinWorkspace(await newUser(role), workspaceId, role);
      statuses.push((await call("PATCH", "/api/workspaces", { ...caller, body: { name: `by ${role}` } })).status);
    }
    expect(statuses).toEqual([200, 403, 403]);
  });
});

describe("invitations by e-mail", () => {
  it("sends the invitation over SMTP; its link, accepted as the invited address, makes a member; another address is refused", async () => {
    const { owner, workspaceId, asOwner } = await teamOf("inviter");
    const invitee = uniqueAddress("bob");
    // The address is typed in another spelling; it is stored, sent and compared normalised.
    const invited = await call("POST", "/api/members", {
      ...asOwner,
      body: { email: `  ${invitee.toUpperCase()}.`.replace("EXAMPLE.COM.", "Example.COM."), role: "member" },
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toEqual({
      id: expect.stringMatching(/^inv_/),
      email: invitee,
      role: "member",
      status: "invited",
      created_at: expect.any(Number),
    });

    const message = await smtp.messageTo(invitee);
    expect(message.authenticatedAs).toBe("mailer");
    expect(message.envelopeFrom).toBe("teams@permalink.test");
    expect(message.mail.subject).toBe("You're invited to a workspace on Permalink");
    expect(message.mail.text).toContain(owner.email);
    const link = invitationLinkIn(message.mail.text!);
    expect(message.mail.html).toContain(`href="${link.href}"`);
    const token = tokenOf(link);
    const stored = await db().invitation.findUniqueOrThrow({ where: { id: invited.body.id } });
    expect(stored.tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(stored)).not.toContain(token);

    // The invitation's page says what the link offers, before anyone signs in, in the e-mail's words.
    const outline = await describeInvitation(token);
    expect(outline).toEqual({
      sentence: `${owner.email} invited you to join the workspace "inviter team" on Permalink as a member.`,
      email: invitee,
      expiresAt: stored.expiresAt,
      unusable: null,
    });
    expect(message.mail.text).toContain(`${owner.email} invited you to join the workspace "inviter team"`);
    await expect(describeInvitation(`${token}x`)).rejects.toMatchObject({ code: "not_found" });

    const stranger = await newUser("stranger");
    const refused = await call("POST", `/api/invitations/${token}/accept`, { token: stranger.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/another e-mail address/);
    expect(refused.body.error).not.toContain(invitee);

    // The invited person signs in with a look-alike spelling of the address: the same person.
    const bobToken = await sessionFor(invitee.replace(/^b/, "Ｂ"));
    const accepted = await call("POST", `/api/invitations/${token}/accept`, { token: bobToken });
    expect(accepted.status).toBe(200);
    expect(accepted.body.workspace).toMatchObject({ id: workspaceId, name: "inviter team", kind: "team", role: "member" });
    // Used, the link says only why it no longer works: not who invited whom to what.
    expect(await describeInvitation(token)).toEqual({ unusable: expect.stringMatching(/already been used/) });
    expect(accepted.body.member).toMatchObject({
      id: expect.stringMatching(/^mem_/),
      email: invitee,
      role: "member",
      status: "active",
    });

    const members = await call("GET", "/api/members", asOwner);
    expect(
      members.body.members.map((member: { email: string; status: string; role: string }) => [
        member.email,
        member.role,
        member.status,
      ]),
    ).toEqual([
      [owner.email, "owner", "active"],
      [invitee, "member", "active"],
    ]);
    // A member creates links that belong to the workspace.
    const link2 = await call("POST", "/api/links", {
      token: bobToken,
      headers: { "x-workspace-id": workspaceId },
      body: { destination: "https://example.com/team-page" },
    });
    expect(link2.status).toBe(201);
    expect(await db().link.count({ where: { id: link2.body.id, workspaceId } })).toBe(1);

    expect((await call("POST", `/api/invitations/${token}/accept`, { token: bobToken })).status).toBe(410);
    expect((await call("POST", `/api/invitations/${"x".repeat(43)}/accept`, { token: bobToken })).status).toBe(404);
  });

  it("refuses to invite a member or an address already invited (409), and people management by an API key or a viewer (403)", async () => {
    const { owner, workspaceId, asOwner } = await teamOf("dupes");
    const address = uniqueAddress("carol");
    expect((await call("POST", "/api/members", { ...asOwner, body: { email: address } })).status).toBe(201);
    const again = await call("POST", "/api/members", { ...asOwner, body: { email: address.toUpperCase(), role: "admin" } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/pending invitation/);
    const ownEmail = await call("POST", "/api/members", { ...asOwner, body: { email: owner.email } });
    expect(ownEmail.status).toBe(409);
    expect(ownEmail.body.error).toMatch(/already belongs to a member/);

    const viewer = await joinWorkspace(await newUser("viewer"), workspaceId, "viewer");
    expect((await call("POST", "/api/members", { ...viewer, body: { email: uniqueAddress("x") } })).status).toBe(403);
    const key = (await call("POST", "/api/billing/claim", asOwner)).body.api_key;
    const byKey = await call("POST", "/api/members", { token: key, body: { email: uniqueAddress("y") } });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error).toMatch(/API key cannot manage people/);
    expect((await call("POST", "/api/members", { ...asOwner, body: { email: "not an address" } })).status).toBe(400);
  });

  it("lets two concurrent invitations of one address produce exactly one", async () => {
    const { asOwner } = await teamOf("race");
    const address = uniqueAddress("dana");
    const statuses = (
      await Promise.all(Array.from({ length: 4 }, () => call("POST", "/api/members", { ...asOwner, body: { email: address } })))
    ).map((r) => r.status);
    expect(statuses.sort()).toEqual([201, 409, 409, 409]);
  });

  it("expires after INVITATION_TTL_DAYS (410) and shows so; a re-send's new link works while the old one answers 410", async () => {
    const { workspaceId, asOwner } = await teamOf("expiry");
    const address = uniqueAddress("erin");
    const invited = await call("POST", "/api/members", { ...asOwner, body: { email: address, role: "viewer" } });
    const oldToken = tokenOf(invitationLinkIn((await smtp.messageTo(address)).mail.text!));
    const start = Date.now();
    setClock({ now: () => start + 14 * 24 * 3600 * 1000 + 1000 });
    const erin = await sessionFor(address);
    const expired = await call("POST", `/api/invitations/${oldToken}/accept`, { token: erin });
    expect(expired.status).toBe(410);
    expect(expired.body.error).toMatch(/expired/);
    const listed = await call("GET", "/api/members", asOwner);
    expect(listed.body.members.find((member: { id: string }) => member.id === invited.body.id)).toMatchObject({
      status: "expired",
      role: "viewer",
    });

    const before = smtp.messages.length;
    const resent = await call("POST", `/api/members/${invited.body.id}/resend`, asOwner);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ id: expect.stringMatching(/^inv_/), email: address, role: "viewer", status: "invited" });
    expect(resent.body.id).not.toBe(invited.body.id);
    expect(smtp.messages.length).toBe(before + 1);
    const newToken = tokenOf(invitationLinkIn(smtp.messages.at(-1)!.mail.text!));
    expect((await call("POST", `/api/invitations/${oldToken}/accept`, { token: erin })).status).toBe(410);
    const accepted = await call("POST", `/api/invitations/${newToken}/accept`, { token: erin });
    expect(accepted.status).toBe(200);
    expect(accepted.body.workspace).toMatchObject({ id: workspaceId, role: "viewer" });
    // A viewer reads and creates nothing.
    const asErin = { token: erin, headers: { "x-workspace-id": workspaceId } };
    expect((await call("GET", "/api/links", asErin)).status).toBe(200);
    expect((await call("POST", "/api/links", { ...asErin, body: { destination: "https://example.com/viewer" } })).status).toBe(
      403,
    );
  });

  it("honours INVITATION_TTL_DAYS", async () => {
    vi.stubEnv("INVITATION_TTL_DAYS", "2");
    resetConfig();
    const { asOwner } = await teamOf("ttl");
    const invited = await call("POST", "/api/members", { ...asOwner, body: { email: uniqueAddress("ttl") } });
    const stored = await db().invitation.findUniqueOrThrow({ where: { id: invited.body.id } });
    expect(stored.expiresAt.getTime() - stored.sentAt.getTime()).toBe(2 * 24 * 3600 * 1000);
  });

  it("revokes an invitation: it leaves the list and its link answers 410", async () => {
    const { asOwner } = await teamOf("revoke");
    const address = uniqueAddress("fay");
    const invited = await call("POST", "/api/members", { ...asOwner, body: { email: address } });
    const token = tokenOf(invitationLinkIn((await smtp.messageTo(address)).mail.text!));
    expect((await call("DELETE", `/api/members/${invited.body.id}`, asOwner)).status).toBe(200);
    expect((await call("GET", "/api/members", asOwner)).body.members.map((member: { id: string }) => member.id)).not.toContain(
      invited.body.id,
    );
    const revoked = await call("POST", `/api/invitations/${token}/accept`, { token: await sessionFor(address) });
    expect(revoked.status).toBe(410);
    expect(revoked.body.error).toMatch(/revoked/);
    expect((await call("DELETE", `/api/members/${invited.body.id}`, asOwner)).status).toBe(404);
  });

  it("returns the link as invite_url and prints it where no mail server is configured (development)", async () => {
    vi.stubEnv("SMTP_URL", "");
    resetConfig();
    const logged = vi.spyOn(log(), "info").mockImplementation(() => {});
    const printed = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      const { asOwner } = await teamOf("nosmtp");
      const address = uniqueAddress("gus");
      const invited = await call("POST", "/api/members", { ...asOwner, body: { email: address } });
      expect(invited.status).toBe(201);
      expect(invited.body.invite_url).toMatch(/^http:\/\/app\.test\.example\/invite\/[\w-]{43}$/);
      expect(JSON.stringify(logged.mock.calls)).not.toContain(invited.body.invite_url);
      expect(printed.mock.calls.map(([chunk]) => String(chunk)).join("")).toContain(invited.body.invite_url);
      const accepted = await call("POST", `/api/invitations/${tokenOf(new URL(invited.body.invite_url))}/accept`, {
        token: await sessionFor(address),
      });
      expect(accepted.status).toBe(200);
    } finally {
      logged.mockRestore();
      printed.mockRestore();
    }
  });

  it("refuses to invite in production without a mail server (503), writing nothing", async () => {
    const { workspaceId, asOwner } = await teamOf("prod");
    vi.stubEnv("SMTP_URL", "");
    vi.stubEnv("NODE_ENV", "production");
    vi.stubEnv("BILLING_PROVIDER", "local");
    resetConfig();
    const refused = await call("POST", "/api/members", { ...asOwner, body: { email: uniqueAddress("hal") } });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatch(/SMTP_URL/);
    expect(await db().invitation.count({ where: { workspaceId } })).toBe(0);
  });

  it("writes nothing when the mail server refuses the message (502)", async () => {
    const { workspaceId, asOwner } = await teamOf("smtpdown");
    vi.stubEnv("SMTP_URL", smtp.url.replace(/:[^:@/]+@/, ":wrong-password@"));
    resetConfig();
    const warn = vi.spyOn(log(), "warn").mockImplementation(() => {});
    try {
      const refused = await call("POST", "/api/members", { ...asOwner, body: { email: uniqueAddress("ivy") } });
      expect(refused.status).toBe(502);
      expect(await db().invitation.count({ where: { workspaceId } })).toBe(0);
    } finally {
      warn.mockRestore();
      closeEmail();
    }
  });
});

describe("a mail server that never answers", () => {
  it("holds no database connection while invitations wait for it, and leaves no invitation behind (502)", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { workspaceId, asOwner } = await teamOf("silentsmtp");
    vi.stubEnv("SMTP_URL", `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    resetConfig();
    const warn = vi.spyOn(log(), "warn").mockImplementation(() => {});
    try {
      // More invitations than the pool has connections: were they waiting inside transactions, nothing else could query.
      const invites = Array.from({ length: 12 }, (_, i) =>
        call("POST", "/api/members", { ...asOwner, body: { email: uniqueAddress(`quiet${i}`) } }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const started = Date.now();
      await db().$queryRaw`SELECT 1`;
      expect(Date.now() - started).toBeLessThan(1000);
      const answers = await Promise.all(invites);
      expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(502));
      expect(await db().invitation.count({ where: { workspaceId } })).toBe(0);
    } finally {
      warn.mockRestore();
      closeEmail();
      silent.close();
    }
  }, 60_000);
});

describe("roles and leaving", () => {
  it("lets owners and admins change roles, keeps owner changes for owners", async () => {
    const { workspaceId, asOwner } = await teamOf("roles");
    const admin = await joinWorkspace(await newUser("admin"), workspaceId, "admin");
    await joinWorkspace(await newUser("member"), workspaceId, "member");
    const idOf = async (role: string) =>
      (await call("GET", "/api/members", asOwner)).body.members.find((member: { role: string }) => member.role === role)
        .id as string;
    const memberId = await idOf("member");
    const ownerId = await idOf("owner");

    const toViewer = await call("PATCH", `/api/members/${memberId}`, { ...admin, body: { role: "viewer" } });
    expect(toViewer.status).toBe(200);
    expect(toViewer.body).toMatchObject({ id: memberId, role: "viewer", status: "active" });
    expect((await call("PATCH", `/api/members/${memberId}`, { ...admin, body: { role: "owner" } })).status).toBe(403);
    expect((await call("PATCH", `/api/members/${ownerId}`, { ...admin, body: { role: "member" } })).status).toBe(403);
    expect((await call("DELETE", `/api/members/${ownerId}`, admin)).status).toBe(403);
    expect((await call("PATCH", `/api/members/${memberId}`, { ...asOwner, body: { role: "owner" } })).status).toBe(200);
    expect((await call("PATCH", `/api/members/${memberId}`, { ...asOwner, body: { role: "superuser" } })).status).toBe(400);
    expect((await call("PATCH", "/api/members/mem_doesnotexist", { ...asOwner, body: { role: "member" } })).status).toBe(404);
  });

  it("keeps the last owner: neither demoted nor leaving (409); with another owner, leaving works", async () => {
    const { owner, workspaceId, asOwner } = await teamOf("last");
    const members = (await call("GET", "/api/members", asOwner)).body.members;
    const ownerId = members[0].id;
    const demoted = await call("PATCH", `/api/members/${ownerId}`, { ...asOwner, body: { role: "admin" } });
    expect(demoted.status).toBe(409);
    expect(demoted.body.error).toMatch(/at least one owner/);
    expect((await call("DELETE", `/api/members/${ownerId}`, asOwner)).status).toBe(409);

    const second = await newUser("second");
    const asSecond = await joinWorkspace(second, workspaceId, "owner");
    expect((await call("DELETE", `/api/members/${ownerId}`, asOwner)).status).toBe(200);
    expect((await call("GET", "/api/members", asOwner)).status).toBe(401);
    expect((await call("GET", "/api/members", asSecond)).body.members.map((member: { email: string }) => member.email)).toEqual([
      second.email,
    ]);
    expect(owner.email).not.toBe(second.email);
  });

  it("names the caller's own member id (the dashboard's leave button), which leaving removes; an API key has none", async () => {
    const { workspaceId, asOwner } = await teamOf("own-id");
    const member = await newUser("own-id-member");
    const asMember = await joinWorkspace(member, workspaceId, "member");
    const ownId = await ownMemberId({ kind: "session", userId: member.userId, workspaceId, role: "member" });
    const listed = (await call("GET", "/api/members", asOwner)).body.members.find(
      (entry: { email: string }) => entry.email === member.email,
    );
    expect(ownId).toBe(listed.id);
    expect(await ownMemberId({ kind: "api_key", apiKeyId: "key_none", workspaceId })).toBeNull();
    expect((await call("DELETE", `/api/members/${ownId}`, asMember)).status).toBe(200);
    expect(await ownMemberId({ kind: "session", userId: member.userId, workspaceId, role: "member" })).toBeNull();
  });

  it("lets exactly one of two owners leave when both try at once", async () => {
    for (let round = 0; round < 5; round++) {
      const { workspaceId, asOwner } = await teamOf(`both${round}`);
      const asSecond = await joinWorkspace(await newUser("second"), workspaceId, "owner");
      const ids = (await call("GET", "/api/members", asOwner)).body.members.map((member: { id: string }) => member.id);
      const [first, second] = await Promise.all([
        call("DELETE", `/api/members/${ids[0]}`, asOwner),
        call("PATCH", `/api/members/${ids[1]}`, { ...asSecond, body: { role: "viewer" } }),
      ]);
      // The leave and the demotion both answer 200; whichever ran second finds no other owner.
      expect([first.status === 200, second.status === 200].filter(Boolean)).toHaveLength(1);
      expect([first.status, second.status].filter((status) => status === 409)).toHaveLength(1);
      expect(await db().membership.count({ where: { workspaceId, role: "owner" } })).toBe(1);
    }
  });

  it("lets a member leave and an admin remove a member; a personal workspace's user stays its owner", async () => {
    const { workspaceId, asOwner } = await teamOf("leave");
    const admin = await joinWorkspace(await newUser("admin"), workspaceId, "admin");
    const leaver = await newUser("leaver");
    const asLeaver = await joinWorkspace(leaver, workspaceId, "member");
    const removed = await joinWorkspace(await newUser("removed"), workspaceId, "viewer");
    const list = (await call("GET", "/api/members", asOwner)).body.members as { id: string; role: string; email: string }[];
    const idOfEmail = (email: string) => list.find((member) => member.email === email)!.id;
    const removedId = list.find((member) => member.role === "viewer")!.id;
    expect((await call("DELETE", `/api/members/${removedId}`, asLeaver)).status).toBe(403);
    expect((await call("DELETE", `/api/members/${idOfEmail(leaver.email)}`, asLeaver)).status).toBe(200);
    expect((await call("DELETE", `/api/members/${removedId}`, admin)).status).toBe(200);
    expect((await call("GET", "/api/links", removed)).status).toBe(401);

    const personal = await newUser("personal");
    const guest = await joinWorkspace(await newUser("guest"), personal.workspaceId, "owner");
    const personalOwnerId = (await call("GET", "/api/members", { token: personal.token })).body.members[0].id;
    const kept = await call("DELETE", `/api/members/${personalOwnerId}`, guest);
    expect(kept.status).toBe(409);
    expect(kept.body.error).toMatch(/personal workspace/);
    expect((await call("PATCH", `/api/members/${personalOwnerId}`, { ...guest, body: { role: "member" } })).status).toBe(409);
  });
});

describe("the API key leaves with the person who claimed it", () => {
  /** A subscribed team whose admin claimed the workspace's key, and the owner's address. */
  async function teamWithAdminKey(label: string) {
    const team = await teamOf(label);
    const admin = await newUser(`${label}-admin`);
    const asAdmin = await joinWorkspace(admin, team.workspaceId, "admin");
    const claimed = await call("POST", "/api/billing/claim", asAdmin);
    expect(claimed.status).toBe(200);
    const adminId = (await call("GET", "/api/members", team.asOwner)).body.members.find(
      (member: { email: string }) => member.email === admin.email,
    ).id as string;
    return { ...team, admin, asAdmin, adminId, apiKey: claimed.body.api_key as string };
  }

  const keyWorks = async (apiKey: string) => (await call("GET", "/api/links", { token: apiKey })).status === 200;

  it("revokes the key when its claimer is removed, says so in the answer and e-mails the owners", async () => {
    const { owner, adminId, admin, apiKey, asOwner } = await teamWithAdminKey("keyremoval");
    expect(await keyWorks(apiKey)).toBe(true);
    const removed = await call("DELETE", `/api/members/${adminId}`, asOwner);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: adminId, api_key_revoked: true, webhooks_disabled: [], webhooks_rotation_due: [] });
    expect(await keyWorks(apiKey)).toBe(false);
    const notice = await smtp.messageTo(owner.email);
    expect(notice.mail.subject).toBe("Your workspace's API key was revoked");
    expect(notice.mail.text).toContain(admin.email);
    expect(notice.mail.text).toMatch(/integrations using it stop/);
    expect(notice.mail.text).toContain("http://app.test.example/dashboard/settings");
  });

  it("revokes the key when its claimer is demoted below admin, even after it rotated itself, and not on other changes", async () => {
    const { adminId, apiKey, asOwner, workspaceId } = await teamWithAdminKey("keydemotion");
    const rotated = await call("POST", "/api/keys/rotate", { token: apiKey });
    expect(rotated.status).toBe(200);
    const successor = rotated.body.api_key as string;
    // Someone else leaving, or the claimer becoming an owner, keeps the key.
    const bystander = await joinWorkspace(await newUser("bystander"), workspaceId, "admin");
    const bystanderId = (await call("GET", "/api/members", asOwner)).body.members.at(-1).id;
    expect((await call("DELETE", `/api/members/${bystanderId}`, bystander)).body).toEqual({
      id: bystanderId,
      api_key_revoked: false,
      webhooks_disabled: [],
      webhooks_rotation_due: [],
    });
    const promoted = await call("PATCH", `/api/members/${adminId}`, { ...asOwner, body: { role: "owner" } });
    expect(promoted.body).toMatchObject({ role: "owner", api_key_revoked: false });
    expect(await keyWorks(successor)).toBe(true);

    const demoted = await call("PATCH", `/api/members/${adminId}`, { ...asOwner, body: { role: "member" } });
    expect(demoted.status).toBe(200);
    expect(demoted.body).toMatchObject({ id: adminId, role: "member", api_key_revoked: true });
    expect(await keyWorks(successor)).toBe(false);
    expect(await db().apiKey.count({ where: { workspaceId, revokedAt: null } })).toBe(0);
  });

  it("revokes the key when its claimer leaves", async () => {
    const { adminId, asAdmin, apiKey } = await teamWithAdminKey("keyleaving");
    const left = await call("DELETE", `/api/members/${adminId}`, asAdmin);
    expect(left.body).toEqual({ id: adminId, api_key_revoked: true, webhooks_disabled: [], webhooks_rotation_due: [] });
    expect(await keyWorks(apiKey)).toBe(false);
  });
});

describe("invitations cannot be a phishing relay", () => {
  it("needs an active subscription to invite (402 with the subscribe sentence), recording nothing", async () => {
    const owner = await newUser("unpaid", { subscription: false });
    const created = await call("POST", "/api/workspaces", { token: owner.token, body: { name: "Unpaid team" } });
    const asOwner = { token: owner.token, headers: { "x-workspace-id": created.body.id } };
    const refused = await call("POST", "/api/members", { ...asOwner, body: { email: uniqueAddress("lure") } });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatch(
      /no active subscription, so it cannot invite people\. Subscribe with POST \/api\/billing\/checkout/,
    );
    expect(await db().invitation.count({ where: { workspaceId: created.body.id } })).toBe(0);
    expect(smtp.messages.some((message) => message.envelopeTo.some((to) => to.startsWith("lure-")))).toBe(false);
  });

  it("caps the team workspaces one person creates at 10 (409 with a sentence)", async () => {
    const user = await newUser("hoarder", { subscription: false });
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        call("POST", "/api/workspaces", { token: user.token, body: { name: `Team ${index}` } }),
      ),
    );
    expect(statuses.filter((answer) => answer.status === 201)).toHaveLength(10);
    const refused = statuses.filter((answer) => answer.status === 409);
    expect(refused).toHaveLength(2);
    expect(refused[0]!.body.error).toMatch(/10 team workspaces/);
    expect(await db().workspace.count({ where: { kind: "team", memberships: { some: { userId: user.userId } } } })).toBe(10);
  });

  it.each([
    "Account locked - restore at permalink-help.evil.example",
    "Visit https://evil.example now",
    "support@evil.example",
    "www.evil",
    "evil。example",
    "xn--80ak6aa92e.com",
  ])("refuses a workspace name carrying an address or a domain name: %s", async (name) => {
    const user = await newUser("phisher", { subscription: false });
    const created = await call("POST", "/api/workspaces", { token: user.token, body: { name } });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatch(/web address, a domain name/);
    expect((await call("PATCH", "/api/workspaces", { token: user.token, body: { name } })).status).toBe(400);
  });

  it("keeps names like v2.0, Acme Inc. or R&D", async () => {
    const user = await newUser("plain", { subscription: false });
    for (const name of ["Launch v2.0", "Acme Inc.", "R&D / Ops", "e.g. marketing"]) {
      expect((await call("POST", "/api/workspaces", { token: user.token, body: { name } })).status).toBe(201);
    }
  });

  it("quotes the workspace's name in the body only, never the Subject, and leaves out a name that carries an address", async () => {
    const { workspaceId, asOwner } = await teamOf("quoted");
    const invitee = uniqueAddress("quoted");
    expect((await call("POST", "/api/members", { ...asOwner, body: { email: invitee } })).status).toBe(201);
    const message = await smtp.messageTo(invitee);
    expect(message.mail.subject).toBe("You're invited to a workspace on Permalink");
    expect(message.mail.text).toContain('the workspace "quoted team"');

    // A name stored before the rule (a personal workspace is named after its user's address) stays out of the message.
    await db().workspace.update({ where: { id: workspaceId }, data: { name: "Restore at permalink-help.evil.example" } });
    const second = uniqueAddress("unquoted");
    expect((await call("POST", "/api/members", { ...asOwner, body: { email: second } })).status).toBe(201);
    const unquoted = await smtp.messageTo(second);
    expect(unquoted.mail.subject).not.toMatch(/evil/);
    expect(unquoted.mail.text).not.toMatch(/evil/);
    expect(unquoted.mail.html).not.toMatch(/evil/);
    expect(unquoted.mail.text).toMatch(/invited you to join a workspace on Permalink/);
  });

  it("sends at most 50 invitation e-mails a workspace a day, counted in the database (429 until the next UTC day)", async () => {
    const { workspaceId, asOwner } = await teamOf("daily");
    const answers = [];
    for (let batch = 0; batch < 5; batch++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 11 }, (_, index) =>
            call("POST", "/api/members", { ...asOwner, body: { email: uniqueAddress(`daily${batch}-${index}`) } }),
          ),
        )),
      );
    }
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(50);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.body.error).toMatch(/50 invitations a day/);
    expect(Number(refused[0]!.headers.get("retry-after"))).toBeGreaterThan(0);
    const pending = (await call("GET", "/api/members", asOwner)).body.members.find(
      (member: { status: string }) => member.status === "invited",
    );
    expect((await call("POST", `/api/members/${pending.id}/resend`, asOwner)).status).toBe(429);
    expect(await db().invitation.count({ where: { workspaceId } })).toBe(50);

    setClock({ now: () => Date.now() + 24 * 60 * 60 * 1000 });
    expect((await call("POST", "/api/members", { ...asOwner, body: { email: uniqueAddress("tomorrow") } })).status).toBe(201);
    // Only the day being counted is kept.
    expect(await db().invitationDay.findMany({ where: { workspaceId }, select: { sent: true } })).toEqual([{ sent: 1 }]);
  }, 60_000);
});
