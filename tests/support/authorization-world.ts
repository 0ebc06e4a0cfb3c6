import { scanBuffer } from "@/lib/analytics/scans";
import { hashApiKey } from "@/lib/auth/api-keys";
import { claimApiKey } from "@/lib/auth/store";
import { clock } from "@/lib/clock";
import { db } from "@/lib/db/client";
import type { WorkspaceLogo } from "@/lib/db/generated/client";
import { newId } from "@/lib/db/random";
import type { Scope } from "@/lib/http/scopes";
import { hashInvitationToken } from "@/lib/members/tokens";
import { secretHash } from "@/lib/oauth/tokens";
import { newSigningSecret, sealSecret } from "@/lib/webhooks/secret";
import { randomBytes } from "node:crypto";
import { call, joinWorkspace, newUser, subscribe, type TestUser } from "./api";
import { solidImage } from "./images";
import { connectApp } from "./oauth";
import { visit } from "./visits";

export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export type CallerKind = Role | "api_key";
export const CALLERS: readonly CallerKind[] = [...ROLES, "api_key"];

export type Credentials = { token: string; headers: Record<string, string> };

/**
 * What a route's request may name: a workspace's resources. A real workspace creates them (and
 * remembers every id and address it hands out as a secret the other workspace must never see);
 * the ghost hands out ids of the same shape that exist nowhere.
 */
export interface Target {
  readonly id: string;
  /** A live link created by the owner, with its own logo. */
  link(): Promise<string>;
  /** A new live link created by the owner, for requests that change or archive it. */
  freshLink(options?: { logo?: boolean }): Promise<string>;
  /** A new member (role member) of the workspace: their membership id. */
  freshMember(): Promise<string>;
  /** A new pending invitation to an address nobody signs in with: its id and link token. */
  freshInvitation(): Promise<{ id: string; token: string }>;
  /** The short URL of link(). */
  shortUrl(): Promise<string>;
  /** A verified custom domain of the workspace. */
  domain(): Promise<string>;
  /** A new, unverified custom domain without links, for requests that delete it. */
  freshDomain(): Promise<string>;
  /** A new tag, for requests that rename or delete it. */
  freshTag(): Promise<string>;
  /** A new UTM template saved by nobody in particular (the API key's), for requests that delete it. */
  freshUtmTemplate(): Promise<string>;
  /** A finished import of the workspace. */
  freshImport(): Promise<string>;
  /** A new webhook of the workspace, whose receiver is refused at connection time (an internal address). */
  freshWebhook(): Promise<string>;
  /** A new app the owner connected to the workspace with OAuth: its grant's id. */
  freshGrant(): Promise<string>;
}

const unique = () => randomBytes(6).toString("hex");

async function png(): Promise<Buffer> {
  return solidImage("png", 64, 64, "#2040d0");
}

/** A subscribed team workspace with one user per role, an API key, links (with logos) and a pending invitation. */
export class TeamWorkspace implements Target {
  readonly secrets = new Set<string>();
  private apiKey: string | undefined;
  private staticLink: { id: string; slug: string } | undefined;
  private staticDomain: string | undefined;

  private constructor(
    readonly label: string,
    readonly id: string,
    readonly name: string,
    readonly users: Record<Role, TestUser>,
  ) {}

  /** Scans of link(), made by real visits through the short-link door. */
  scans = 0;

  static async create(label: string, linkCount: number, scanCount: number): Promise<TeamWorkspace> {
    const owner = await newUser(`${label}-owner`, { subscription: false });
    const name = `Team ${label} ${unique()}`;
    const created = await call("POST", "/api/workspaces", { token: owner.token, body: { name } });
    if (created.status !== 201) throw new Error(`The team workspace was not created: ${created.status} ${created.text}`);
    const workspaceId = created.body.id as string;
    await subscribe({ userId: owner.userId, workspaceId });
    const users = { owner } as Record<Role, TestUser>;
    for (const role of ["admin", "member", "viewer"] as const) {
      users[role] = await newUser(`${label}-${role}`);
      await joinWorkspace(users[role], workspaceId, role);
    }
    const workspace = new TeamWorkspace(label, workspaceId, name, users);
    for (const value of [workspaceId, name]) workspace.secrets.add(value);
    for (const user of Object.values(users)) {
      for (const value of [user.userId, user.email, user.workspaceId]) workspace.secrets.add(value);
    }
    for (const membership of await db().membership.findMany({ where: { workspaceId }, select: { id: true } }))
      workspace.secrets.add(membership.id);
    for (let index = 0; index < linkCount; index++) await workspace.freshLink({ logo: index === 0 });
    await workspace.setWorkspaceLogo();
    await workspace.freshInvitation();
    await workspace.scan(scanCount);
    return workspace;
  }

  private appTokens = new Map<string, string>();

  /** An access token of an app the owner connected to this workspace with exactly these scopes (connected again once revoked). */
  async appToken(scopes: readonly Scope[]): Promise<string> {
    const key = [...scopes].sort().join(" ");
    const known = this.appTokens.get(key);
    const live = known && (await db().oAuthToken.count({ where: { tokenHash: secretHash(known), grant: { revokedAt: null } } }));
    if (known && live) return known;
    const { tokens } = await connectApp(this.users.owner, this.id, scopes);
    this.appTokens.set(key, tokens.access_token);
    return tokens.access_token;
  }

  async freshGrant(): Promise<string> {
    await connectApp(this.users.owner, this.id, ["links:read"]);
    const grant = await db().oAuthGrant.findFirstOrThrow({
      where: { workspaceId: this.id, userId: this.users.owner.userId, revokedAt: null },
      orderBy: { createdAt: "desc" },
    });
    this.secrets.add(grant.id);
    return grant.id;
  }

  /** How a caller of this workspace authenticates: a role's session naming the workspace, or its live API key. */
  async credentials(caller: CallerKind, workspaceHeader: string = this.id): Promise<Credentials> {
    if (caller === "api_key") return { token: await this.liveApiKey(), headers: { "x-workspace-id": workspaceHeader } };
    return { token: this.users[caller].token, headers: { "x-workspace-id": workspaceHeader } };
  }

  /** The workspace's API key, minted again when a request (a rotation, a revocation) has retired it. */
  async liveApiKey(): Promise<string> {
    const live = this.apiKey ? await db().apiKey.count({ where: { keyHash: hashApiKey(this.apiKey), revokedAt: null } }) : 0;
    if (live === 0) {
      await this.revokeApiKey();
      this.apiKey = await claimApiKey(this.id, this.users.owner.userId);
    }
    return this.apiKey!;
  }

  async revokeApiKey(): Promise<void> {
    await db().apiKey.updateMany({
      where: { workspaceId: this.id, revokedAt: null },
      data: { revokedAt: new Date(clock().now()) },
    });
  }

  async link(): Promise<string> {
    this.staticLink ??= await this.insertLink(true);
    return this.staticLink.id;
  }

  async shortUrl(): Promise<string> {
    await this.link();
    return `http://s.test.example/${this.staticLink!.slug}`;
  }

  async freshLink(options: { logo?: boolean } = {}): Promise<string> {
    const link = await this.insertLink(options.logo ?? false);
    this.staticLink ??= link;
    return link.id;
  }

  async freshMember(): Promise<string> {
    const user = await newUser(`${this.label}-extra`, { subscription: false });
    const membershipId = newId("mem");
    await db().membership.create({ data: { id: membershipId, workspaceId: this.id, userId: user.userId, role: "member" } });
    for (const value of [membershipId, user.userId, user.email, user.workspaceId]) this.secrets.add(value);
    return membershipId;
  }

  async freshInvitation(): Promise<{ id: string; token: string }> {
    const token = randomBytes(32).toString("base64url");
    const email = `invited-${this.label}-${unique()}@example.com`;
    const now = new Date(clock().now());
    const invitation = await db().invitation.create({
      data: {
        id: newId("inv"),
        workspaceId: this.id,
        email,
        role: "member",
        tokenHash: hashInvitationToken(token),
        invitedByUserId: this.users.owner.userId,
        sentAt: now,
        expiresAt: new Date(now.getTime() + 14 * 24 * 3600 * 1000),
      },
    });
    for (const value of [invitation.id, email]) this.secrets.add(value);
    return { id: invitation.id, token };
  }

  /** Visits link() `count` times from different addresses, and writes the scans. */
  private async scan(count: number): Promise<void> {
    const slug = new URL(await this.shortUrl()).pathname.slice(1);
    for (let index = 0; index < count; index++) {
      const answer = await visit(`/${slug}`, {
        headers: { "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/132.0", "X-Forwarded-For": `198.51.100.${index + 1}` },
      });
      if (answer.status >= 400) throw new Error(`A visit of ${slug} answered ${answer.status}`);
    }
    await scanBuffer().flush();
    this.scans += count;
  }

  async domain(): Promise<string> {
    this.staticDomain ??= await this.insertDomain(true);
    return this.staticDomain;
  }

  async freshDomain(): Promise<string> {
    return this.insertDomain(false);
  }

  /** A domain row written directly (no DNS): its id, hostname and token are secrets of this workspace. */
  private async insertDomain(verified: boolean): Promise<string> {
    const id = newId("dom");
    const hostname = `go-${unique()}.${this.label}-matrix.com`;
    const domain = await db().domain.create({
      data: { id, workspaceId: this.id, hostname, ...(verified && { verifiedAt: new Date(clock().now()) }) },
    });
    for (const value of [id, hostname, domain.verificationToken]) this.secrets.add(value);
    return id;
  }

  async freshTag(): Promise<string> {
    const id = newId("tag");
    const name = `tag-${this.label}-${unique()}`;
    await db().tag.create({ data: { id, workspaceId: this.id, name, nameKey: name.toLowerCase(), color: "blue" } });
    for (const value of [id, name]) this.secrets.add(value);
    return id;
  }

  async freshUtmTemplate(): Promise<string> {
    const id = newId("utm");
    const name = `utm-${this.label}-${unique()}`;
    await db().utmTemplate.create({ data: { id, workspaceId: this.id, name, nameKey: name.toLowerCase(), source: "matrix" } });
    for (const value of [id, name]) this.secrets.add(value);
    return id;
  }

  async freshImport(): Promise<string> {
    const id = newId("imp");
    await db().import.create({
      data: { id, workspaceId: this.id, format: "auto", dryRun: true, status: "done", total: 0 },
    });
    this.secrets.add(id);
    return id;
  }

  async freshWebhook(): Promise<string> {
    const id = newId("wh");
    const url = `http://127.0.0.1:9/${this.label}-${unique()}`;
    await db().webhook.create({
      data: { id, workspaceId: this.id, url, events: ["link.created"], secretSealed: sealSecret(newSigningSecret()) },
    });
    for (const value of [id, url]) this.secrets.add(value);
    return id;
  }

  private uploadedLogo?: WorkspaceLogo;

  /**
   * Puts the workspace's default logo back (a request may have removed it). The first time through
   * the upload pipeline; after that its stored result is written back, since a logo operation's row of
   * the matrix restores it dozens of times and each upload is decoded in a process of its own.
   */
  async setWorkspaceLogo(): Promise<void> {
    if (this.uploadedLogo) {
      const { workspaceId, ...logo } = this.uploadedLogo;
      await db().workspaceLogo.upsert({ where: { workspaceId }, create: this.uploadedLogo, update: logo });
      return;
    }
    const response = await call("PUT", "/api/workspaces/logo", {
      ...(await this.credentials("owner")),
      rawBody: await png(),
      headers: { "x-workspace-id": this.id, "content-type": "image/png" },
    });
    if (response.status >= 300) throw new Error(`The workspace logo was not set: ${response.status} ${response.text}`);
    this.uploadedLogo = await db().workspaceLogo.findUniqueOrThrow({ where: { workspaceId: this.id } });
  }

  /** A link row written directly (no safety check, no allowance): the owner's, with a destination unique to it. */
  private async insertLink(logo: boolean): Promise<{ id: string; slug: string }> {
    const id = newId("lnk");
    const slug = `m${unique()}`;
    const destination = `https://example.com/${this.label}/${unique()}`;
    await db().link.create({
      data: { id, workspaceId: this.id, slug, reusable: false, destination, status: 1, createdByUserId: this.users.owner.userId },
    });
    for (const value of [id, slug, destination]) this.secrets.add(value);
    if (logo) {
      const response = await call("PUT", `/api/links/${id}/logo`, {
        ...(await this.credentials("owner")),
        rawBody: await png(),
        headers: { "x-workspace-id": this.id, "content-type": "image/png" },
      });
      if (response.status >= 300) throw new Error(`The link logo was not set: ${response.status} ${response.text}`);
    }
    return { id, slug };
  }
}

/** Ids of the right shape that name nothing: what a workspace's caller sees for a resource that does not exist. */
export class Ghost implements Target {
  readonly id = newId("ws");
  private readonly linkId = newId("lnk");
  link = async () => this.linkId;
  freshLink = async () => newId("lnk");
  freshMember = async () => newId("mem");
  freshInvitation = async () => ({ id: newId("inv"), token: randomBytes(32).toString("base64url") });
  shortUrl = async () => `http://s.test.example/m${unique()}`;
  private readonly domainId = newId("dom");
  domain = async () => this.domainId;
  freshDomain = async () => newId("dom");
  freshTag = async () => newId("tag");
  freshUtmTemplate = async () => newId("utm");
  freshImport = async () => newId("imp");
  freshWebhook = async () => newId("wh");
  freshGrant = async () => newId("ogr");
}

export async function logoImage(): Promise<Buffer> {
  return png();
}
