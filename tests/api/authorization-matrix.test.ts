import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import type { AuthMode } from "@/lib/http/operation";
import { type Scope, SCOPES } from "@/lib/http/scopes";
import { OPERATIONS } from "@/lib/openapi/document";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ApiResponse, call } from "../support/api";
import {
  type CallerKind,
  CALLERS,
  type Credentials,
  Ghost,
  logoImage,
  type Target,
  TeamWorkspace,
} from "../support/authorization-world";

/**
 * The authorisation matrix: two workspaces × every operation of the API (from the OpenAPI
 * document, which tests/project/routes.test.ts holds one to one with app/api's route files) ×
 * each role's session and the workspace's API key. For each it asserts:
 * - the status the permission table promises, on the caller's own workspace;
 * - for an operation naming a resource: the other workspace's resource answers exactly as a
 *   resource that does not exist (same status, same body), so its existence does not leak;
 * - a session naming the other workspace in X-Workspace-Id gets 401; an API key ignores the header;
 * - no response, of any of these, carries the other workspace's ids, names, addresses, slugs or
 *   destinations, and the counts a response reports are the caller's workspace's own.
 *
 * A new operation fails here until it has an entry in FIXTURES below.
 */

type Request = { path: string; body?: unknown; rawBody?: Uint8Array; headers?: Record<string, string> };
type Statuses = Record<CallerKind, number>;

type Fixture = {
  /**
   * The scope column: what an app connected with OAuth needs (its declaration's `scope`). With
   * exactly that scope, the owner's app gets what the owner gets; with every other scope, 403.
   * "any": every app (the MCP server checks each tool's operation); "none": no app at all.
   */
  scope: Scope | "any" | "none";
  /** The request, naming `target`'s resources (the caller's own workspace, the other one, or the ghost). */
  request: (target: Target) => Promise<Request> | Request;
  /** The status on the caller's own workspace, per caller; one number when every caller gets it. */
  status: Statuses | number;
  /** The path names a workspace's resource: also asked with the other workspace's and a nonexistent one. */
  namesResource?: boolean;
  /** Further checks of a successful answer on the caller's own workspace (counts, whose data it is, a tool's verdict). */
  check?: (response: ApiResponse, own: TeamWorkspace, caller: CallerKind) => Promise<void>;
};

const by = (owner: number, admin: number, member: number, viewer: number, apiKey: number): Statuses => ({
  owner,
  admin,
  member,
  viewer,
  api_key: apiKey,
});
const sessionsOnly = (session: number, apiKey: number): Statuses => by(session, session, session, session, apiKey);

let counter = 0;
const uniqueDestination = () => `https://example.com/matrix/${process.pid}-${++counter}`;
const uniqueEmail = () => `matrix-${process.pid}-${++counter}-${Date.now()}@example.com`;

const pngUpload = async (path: string): Promise<Request> => ({
  path,
  rawBody: await logoImage(),
  headers: { "content-type": "image/png" },
});

async function linkWithLogo(target: Target): Promise<string> {
  return target.freshLink({ logo: true });
}

/** One entry per operation, keyed "METHOD /path" as the OpenAPI document writes it. */
const FIXTURES: Record<string, Fixture> = {
  "POST /api/links": {
    scope: "links:write",
    request: () => ({ path: "/api/links", body: { destination: uniqueDestination() } }),
    status: by(201, 201, 201, 403, 201),
  },
  "GET /api/links": {
    scope: "links:read",
    request: () => ({ path: "/api/links?limit=200" }),
    status: 200,
    check: async (response, own) => {
      const ids = response.body.links.map((link: { id: string }) => link.id);
      expect(ids.length).toBeGreaterThan(0);
      expect(await db().link.count({ where: { id: { in: ids }, workspaceId: own.id } })).toBe(ids.length);
    },
  },
  "GET /api/links/{id}": {
    scope: "links:read",
    request: async (target) => ({ path: `/api/links/${await target.link()}` }),
    status: 200,
    namesResource: true,
  },
  "GET /api/links/{id}/history": {
    scope: "links:read",
    request: async (target) => ({ path: `/api/links/${await target.link()}/history` }),
    status: 200,
    namesResource: true,
  },
  "PATCH /api/links/{id}": {
    scope: "links:write",
    request: async (target) => ({ path: `/api/links/${await target.freshLink()}`, body: { destination: uniqueDestination() } }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "DELETE /api/links/{id}": {
    scope: "links:write",
    request: async (target) => ({ path: `/api/links/${await target.freshLink()}` }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "POST /api/links/{id}/restore": {
    scope: "links:write",
    request: async (target) => ({ path: `/api/links/${await target.freshLink()}/restore` }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "POST /api/links/bulk": {
    scope: "links:write",
    request: () => ({ path: "/api/links/bulk", body: { links: [{ destination: uniqueDestination() }] } }),
    status: by(200, 200, 200, 403, 200),
  },
  "GET /api/links/export": {
    scope: "links:read",
    request: () => ({ path: "/api/links/export?format=json" }),
    status: 200,
    check: async (response, own) => {
      expect(response.body.links.length).toBe(await db().link.count({ where: { workspaceId: own.id } }));
    },
  },
  "POST /api/imports": {
    scope: "links:write",
    request: () => ({
      path: "/api/imports?dry_run=1",
      rawBody: new TextEncoder().encode(`long_url\n${uniqueDestination()}\n`),
      headers: { "content-type": "text/csv" },
    }),
    status: by(202, 202, 403, 403, 202),
  },
  "GET /api/imports": { scope: "links:read", request: () => ({ path: "/api/imports" }), status: 200 },
  "GET /api/imports/{id}": {
    scope: "links:read",
    request: async (target) => ({ path: `/api/imports/${await target.freshImport()}` }),
    status: 200,
    namesResource: true,
  },
  "GET /api/imports/{id}/entries": {
    scope: "links:read",
    request: async (target) => ({ path: `/api/imports/${await target.freshImport()}/entries` }),
    status: 200,
    namesResource: true,
  },
  // A finished import: cancelling it is a conflict for those who may cancel.
  "POST /api/imports/{id}/cancel": {
    scope: "links:write",
    request: async (target) => ({ path: `/api/imports/${await target.freshImport()}/cancel` }),
    status: by(409, 409, 403, 403, 409),
    namesResource: true,
  },
  "GET /api/tags": {
    scope: "links:read",
    request: async (target) => {
      await target.freshTag();
      return { path: "/api/tags" };
    },
    status: 200,
    check: async (response, own) => {
      expect(response.body.tags.length).toBe(await db().tag.count({ where: { workspaceId: own.id } }));
    },
  },
  "POST /api/tags": {
    scope: "links:write",
    request: () => ({ path: "/api/tags", body: { name: `matrix ${process.pid}-${++counter}` } }),
    status: by(201, 201, 201, 403, 201),
  },
  "PATCH /api/tags/{id}": {
    scope: "links:write",
    request: async (target) => ({ path: `/api/tags/${await target.freshTag()}`, body: { color: "green" } }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "DELETE /api/tags/{id}": {
    scope: "links:write",
    request: async (target) => ({ path: `/api/tags/${await target.freshTag()}` }),
    status: by(204, 204, 403, 403, 204),
    namesResource: true,
  },
  "GET /api/utm-templates": {
    scope: "links:read",
    request: async (target) => {
      await target.freshUtmTemplate();
      return { path: "/api/utm-templates" };
    },
    status: 200,
    check: async (response, own) => {
      expect(response.body.templates.length).toBe(await db().utmTemplate.count({ where: { workspaceId: own.id } }));
    },
  },
  "POST /api/utm-templates": {
    scope: "links:write",
    request: () => ({ path: "/api/utm-templates", body: { name: `matrix ${process.pid}-${++counter}`, utm_source: "matrix" } }),
    status: by(201, 201, 201, 403, 201),
  },
  "DELETE /api/utm-templates/{id}": {
    scope: "links:write",
    request: async (target) => ({ path: `/api/utm-templates/${await target.freshUtmTemplate()}` }),
    status: by(204, 204, 403, 403, 204),
    namesResource: true,
  },
  "GET /api/links/{id}/qr": {
    scope: "links:read",
    request: async (target) => ({ path: `/api/links/${await target.link()}/qr` }),
    status: 200,
    namesResource: true,
  },
  "GET /api/links/{id}/qr-design": {
    scope: "links:read",
    request: async (target) => ({ path: `/api/links/${await target.link()}/qr-design` }),
    status: 200,
    namesResource: true,
  },
  "PUT /api/links/{id}/qr-design": {
    scope: "links:write",
    request: async (target) => ({ path: `/api/links/${await target.freshLink()}/qr-design`, body: { fg: "#1b2a4a" } }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "DELETE /api/links/{id}/qr-design": {
    scope: "links:write",
    request: async (target) => ({ path: `/api/links/${await target.freshLink()}/qr-design` }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "GET /api/workspaces/qr-design": { scope: "links:read", request: () => ({ path: "/api/workspaces/qr-design" }), status: 200 },
  "PUT /api/workspaces/qr-design": {
    scope: "links:write",
    request: () => ({ path: "/api/workspaces/qr-design", body: { margin: 4 } }),
    status: by(200, 200, 403, 403, 200),
  },
  "GET /api/links/{id}/logo": {
    scope: "links:read",
    request: async (target) => ({ path: `/api/links/${await target.link()}/logo` }),
    status: 200,
    namesResource: true,
  },
  "PUT /api/links/{id}/logo": {
    scope: "links:write",
    request: async (target) => pngUpload(`/api/links/${await target.freshLink()}/logo`),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "DELETE /api/links/{id}/logo": {
    scope: "links:write",
    request: async (target) => ({ path: `/api/links/${await linkWithLogo(target)}/logo` }),
    status: by(204, 204, 403, 403, 204),
    namesResource: true,
  },
  "PUT /api/links/{id}/preview/image": {
    scope: "links:write",
    request: async (target) => pngUpload(`/api/links/${await target.freshLink()}/preview/image`),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  // The destination is made internal, so the fill is refused before any connection (422) once the caller may make it.
  "POST /api/links/{id}/preview/fill": {
    scope: "links:write",
    request: async (target) => {
      const id = await target.freshLink();
      await db().link.updateMany({ where: { id }, data: { destination: "http://10.0.0.7/menu" } });
      return { path: `/api/links/${id}/preview/fill` };
    },
    status: by(422, 422, 403, 403, 422),
    namesResource: true,
  },
  // Anyone's (crawlers fetch it with no credentials): a link without a preview image is 404 to every caller.
  "GET /api/links/{id}/preview/image": {
    scope: "none",
    request: async (target) => ({ path: `/api/links/${await target.link()}/preview/image` }),
    status: 404,
  },
  "GET /api/workspaces/logo": {
    scope: "links:read",
    request: async (target) => {
      if (target instanceof TeamWorkspace) await target.setWorkspaceLogo();
      return { path: "/api/workspaces/logo" };
    },
    status: 200,
  },
  "PUT /api/workspaces/logo": {
    scope: "links:write",
    request: () => pngUpload("/api/workspaces/logo"),
    status: by(200, 200, 403, 403, 200),
  },
  "DELETE /api/workspaces/logo": {
    scope: "links:write",
    request: async (target) => {
      if (target instanceof TeamWorkspace) await target.setWorkspaceLogo();
      return { path: "/api/workspaces/logo" };
    },
    status: by(204, 204, 403, 403, 204),
  },
  "POST /api/billing/claim": {
    scope: "none",
    request: async (target) => {
      if (target instanceof TeamWorkspace) await target.revokeApiKey();
      return { path: "/api/billing/claim" };
    },
    status: by(200, 200, 403, 403, 403),
  },
  "DELETE /api/billing/claim": {
    scope: "none",
    request: async (target) => {
      if (target instanceof TeamWorkspace) await target.liveApiKey();
      return { path: "/api/billing/claim" };
    },
    status: by(200, 403, 403, 403, 403),
  },
  "POST /api/keys/rotate": { scope: "none", request: () => ({ path: "/api/keys/rotate" }), status: sessionsOnly(403, 200) },
  "GET /api/machine-accounts/nonce": { scope: "none", request: () => ({ path: "/api/machine-accounts/nonce" }), status: 200 },
  "POST /api/machine-accounts/key": {
    scope: "none",
    request: () => ({
      path: "/api/machine-accounts/key",
      body: { message: "not a sign-in message", signature: `0x${"ab".repeat(65)}` },
    }),
    status: 400,
  },
  // Both workspaces are subscribed: a second checkout is refused in the portal's favour.
  "POST /api/billing/checkout": {
    scope: "none",
    request: () => ({ path: "/api/billing/checkout", body: {} }),
    status: by(409, 409, 403, 403, 409),
  },
  "POST /api/billing/portal": {
    scope: "none",
    request: () => ({ path: "/api/billing/portal" }),
    status: by(200, 200, 403, 403, 200),
  },
  "POST /api/billing/webhook": {
    scope: "none",
    request: () => ({ path: "/api/billing/webhook", rawBody: new TextEncoder().encode("{}") }),
    status: 503,
  },
  "GET /api/account": {
    scope: "account:read",
    request: () => ({ path: "/api/account" }),
    status: 200,
    check: async (response, own) => {
      expect(response.body.workspace_id).toBe(own.id);
      expect(response.body.links_created_this_cycle).toBe(await db().link.count({ where: { workspaceId: own.id } }));
    },
  },
  "GET /api/workspaces": {
    scope: "account:read",
    request: () => ({ path: "/api/workspaces" }),
    status: 200,
    check: async (response, own) => {
      expect(response.body.workspace.id).toBe(own.id);
    },
  },
  "POST /api/workspaces": {
    scope: "none",
    request: () => ({ path: "/api/workspaces", body: { name: "Another team" } }),
    status: sessionsOnly(201, 403),
  },
  // Renamed to the name it has, so the other workspace's name stays a secret to look for.
  "PATCH /api/workspaces": {
    scope: "none",
    request: (target) => ({ path: "/api/workspaces", body: { name: target instanceof TeamWorkspace ? target.name : "Ghost" } }),
    status: by(200, 200, 403, 403, 403),
  },
  "GET /api/members": {
    scope: "members:read",
    request: () => ({ path: "/api/members" }),
    status: 200,
    check: async (response, own) => {
      const [members, invitations] = await Promise.all([
        db().membership.count({ where: { workspaceId: own.id } }),
        db().invitation.count({ where: { workspaceId: own.id, acceptedAt: null, revokedAt: null } }),
      ]);
      expect(response.body.members).toHaveLength(members + invitations);
    },
  },
  "POST /api/members": {
    scope: "none",
    request: () => ({ path: "/api/members", body: { email: uniqueEmail(), role: "member" } }),
    status: by(201, 201, 403, 403, 403),
  },
  "PATCH /api/members/{id}": {
    scope: "none",
    request: async (target) => ({ path: `/api/members/${await target.freshMember()}`, body: { role: "viewer" } }),
    status: by(200, 200, 403, 403, 403),
    namesResource: true,
  },
  "DELETE /api/members/{id}": {
    scope: "none",
    request: async (target) => ({ path: `/api/members/${await target.freshMember()}` }),
    status: by(200, 200, 403, 403, 403),
    namesResource: true,
  },
  "POST /api/members/{id}/resend": {
    scope: "none",
    request: async (target) => ({ path: `/api/members/${(await target.freshInvitation()).id}/resend` }),
    status: by(200, 200, 403, 403, 403),
    namesResource: true,
  },
  // The invitation is to an address none of the callers signs in with.
  "POST /api/invitations/{token}/accept": {
    scope: "none",
    request: async (target) => ({ path: `/api/invitations/${(await target.freshInvitation()).token}/accept` }),
    status: 403,
  },
  "POST /api/abuse-reports": {
    scope: "none",
    request: async (target) => ({ path: "/api/abuse-reports", body: { url: await target.shortUrl(), reason: "phishing" } }),
    status: 202,
  },
  "GET /api/operator/abuse-reports": { scope: "none", request: () => ({ path: "/api/operator/abuse-reports" }), status: 401 },
  "PUT /api/operator/links/{id}/status": {
    scope: "none",
    request: async (target) => ({ path: `/api/operator/links/${await target.link()}/status`, body: { status: 0 } }),
    status: 401,
  },
  "GET /api/cron/recheck": { scope: "none", request: () => ({ path: "/api/cron/recheck" }), status: 401 },
  "POST /api/domains": {
    scope: "domains:write",
    request: () => ({ path: "/api/domains", body: { hostname: `go-${++counter}-${process.pid}.matrix-added.com` } }),
    status: by(201, 201, 403, 403, 201),
  },
  "GET /api/domains": {
    scope: "domains:read",
    request: async (target) => {
      await target.domain();
      return { path: "/api/domains" };
    },
    status: 200,
    check: async (response, own) => {
      const ids = response.body.domains.map((domain: { id: string }) => domain.id);
      expect(ids.length).toBe(await db().domain.count({ where: { workspaceId: own.id } }));
    },
  },
  "GET /api/domains/{id}": {
    scope: "domains:read",
    request: async (target) => ({ path: `/api/domains/${await target.domain()}` }),
    status: 200,
    namesResource: true,
  },
  "PATCH /api/domains/{id}": {
    scope: "domains:write",
    request: async (target) => ({
      path: `/api/domains/${await target.domain()}`,
      body: { not_found_destination: uniqueDestination() },
    }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "POST /api/domains/{id}/verify": {
    scope: "domains:write",
    request: async (target) => ({ path: `/api/domains/${await target.domain()}/verify` }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "DELETE /api/domains/{id}": {
    scope: "domains:write",
    request: async (target) => ({ path: `/api/domains/${await target.freshDomain()}` }),
    status: by(204, 204, 403, 403, 204),
    namesResource: true,
  },
  // Public (Caddy asks without credentials): a name nobody verified gets 404 whoever asks.
  "GET /api/domains/tls-ask": {
    scope: "none",
    request: () => ({ path: `/api/domains/tls-ask?domain=nobody-${++counter}.matrix-none.com` }),
    status: 404,
  },
  "GET /api/cron/domains": { scope: "none", request: () => ({ path: "/api/cron/domains" }), status: 401 },
  "GET /api/cron/webhooks": { scope: "none", request: () => ({ path: "/api/cron/webhooks" }), status: 401 },
  "GET /api/cron/repoints": { scope: "none", request: () => ({ path: "/api/cron/repoints" }), status: 401 },
  // The signed escrow: owners, admins and the key; each line after the header a code of the caller's own workspace.
  "GET /api/escrow": {
    scope: "none",
    request: () => ({ path: "/api/escrow" }),
    status: by(200, 200, 403, 403, 200),
    check: async (response, own) => {
      const lines = response.text.trim().split("\n");
      expect(JSON.parse(lines[0]!).scope).toEqual({ kind: "workspace", id: own.id });
      expect(lines.length - 2).toBe(await db().link.count({ where: { workspaceId: own.id } }));
    },
  },
  "GET /api/operator/escrow": { scope: "none", request: () => ({ path: "/api/operator/escrow" }), status: 401 },
  "GET /api/escrow/keys": { scope: "none", request: () => ({ path: "/api/escrow/keys" }), status: 200 },
  "PUT /api/domains/{id}/escrow": {
    scope: "none",
    request: async (target) => ({ path: `/api/domains/${await target.domain()}/escrow`, body: { published: false } }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  // Public: a domain whose owners publish nothing has no snapshot, whoever asks.
  "GET /api/escrow/domains/{id}": {
    scope: "none",
    request: async (target) => ({ path: `/api/escrow/domains/${await target.domain()}` }),
    status: 404,
  },
  "GET /api/cron/escrow": { scope: "none", request: () => ({ path: "/api/cron/escrow" }), status: 401 },
  "POST /api/webhooks": {
    scope: "webhooks:write",
    request: () => ({
      path: "/api/webhooks",
      body: { url: `https://hooks-${++counter}.matrix-receiver.com/in`, events: ["link.created"] },
    }),
    status: by(201, 201, 403, 403, 201),
  },
  "GET /api/webhooks": {
    scope: "webhooks:read",
    request: async (target) => {
      await target.freshWebhook();
      return { path: "/api/webhooks" };
    },
    status: by(200, 200, 403, 403, 200),
    check: async (response, own) => {
      expect(response.body.webhooks.length).toBe(await db().webhook.count({ where: { workspaceId: own.id } }));
    },
  },
  "GET /api/webhooks/{id}": {
    scope: "webhooks:read",
    request: async (target) => ({ path: `/api/webhooks/${await target.freshWebhook()}` }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "PATCH /api/webhooks/{id}": {
    scope: "webhooks:write",
    request: async (target) => ({ path: `/api/webhooks/${await target.freshWebhook()}`, body: { description: "matrix" } }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "DELETE /api/webhooks/{id}": {
    scope: "webhooks:write",
    request: async (target) => ({ path: `/api/webhooks/${await target.freshWebhook()}` }),
    status: by(204, 204, 403, 403, 204),
    namesResource: true,
  },
  "POST /api/webhooks/{id}/rotate-secret": {
    scope: "webhooks:write",
    request: async (target) => ({ path: `/api/webhooks/${await target.freshWebhook()}/rotate-secret` }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "POST /api/webhooks/{id}/test": {
    scope: "webhooks:write",
    request: async (target) => ({ path: `/api/webhooks/${await target.freshWebhook()}/test` }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "GET /api/webhooks/{id}/deliveries": {
    scope: "webhooks:read",
    request: async (target) => ({ path: `/api/webhooks/${await target.freshWebhook()}/deliveries` }),
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "POST /api/webhooks/{id}/deliveries/{message_id}/retry": {
    scope: "webhooks:write",
    request: async (target) => {
      const webhookId = await target.freshWebhook();
      const messageId = newId("msg");
      // A target that names another workspace's webhook, or none, has no row to hang a message on.
      if (await db().webhook.findUnique({ where: { id: webhookId } }))
        await db().webhookDelivery.create({
          data: {
            webhookId,
            messageId,
            eventType: "link.created",
            body: "{}",
            state: "failed",
            attempts: 10,
            nextAttemptAt: null,
          },
        });
      return { path: `/api/webhooks/${webhookId}/deliveries/${messageId}/retry` };
    },
    status: by(200, 200, 403, 403, 200),
    namesResource: true,
  },
  "GET /api/cron/scan-retention": { scope: "none", request: () => ({ path: "/api/cron/scan-retention" }), status: 401 },
  "POST /api/oauth/register": {
    scope: "none",
    request: () => ({ path: "/api/oauth/register", body: { redirect_uris: ["http://127.0.0.1/cb"], client_name: "Matrix app" } }),
    status: 201,
  },
  // Public: an unknown app is refused whoever asks, and never redirected anywhere.
  "GET /api/oauth/authorize": {
    scope: "none",
    request: () => ({ path: "/api/oauth/authorize?response_type=code&client_id=ocl_AAAAAAAAAAAAAAAAAAAA" }),
    status: 400,
  },
  "POST /api/oauth/token": {
    scope: "none",
    request: () => ({
      path: "/api/oauth/token",
      rawBody: new TextEncoder().encode("grant_type=refresh_token&refresh_token=plr_x&client_id=ocl_AAAAAAAAAAAAAAAAAAAA"),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }),
    status: 401,
  },
  // Owners and admins see every connected app, the others their own; an API key none.
  "GET /api/oauth/grants": {
    scope: "none",
    request: async (target) => {
      if (target instanceof TeamWorkspace) await target.freshGrant();
      return { path: "/api/oauth/grants" };
    },
    status: sessionsOnly(200, 403),
    check: async (response, own) => {
      const ids = response.body.grants.map((grant: { id: string }) => grant.id);
      expect(await db().oAuthGrant.count({ where: { id: { in: ids }, workspaceId: own.id } })).toBe(ids.length);
    },
  },
  // The owner's connection: only owners and admins revoke someone else's.
  "DELETE /api/oauth/grants/{id}": {
    scope: "none",
    request: async (target) => ({ path: `/api/oauth/grants/${await target.freshGrant()}` }),
    status: by(204, 204, 403, 403, 403),
    namesResource: true,
  },
  "GET /api/openapi.json": { scope: "none", request: () => ({ path: "/api/openapi.json" }), status: 200 },
  // Public (a load balancer's probe asks without credentials): the same answer whoever asks, naming no workspace.
  "GET /api/health": {
    scope: "none",
    request: () => ({ path: "/api/health" }),
    status: 200,
    // A workspace's credentials are no operator's: the status alone.
    check: async (response) => expect(response.body).toEqual({ status: expect.any(String) }),
  },
  "GET /api/analytics": {
    scope: "analytics:read",
    request: async (target) => ({ path: `/api/analytics?link_id=${await target.link()}&group_by=link` }),
    status: 200,
    namesResource: true,
    check: async (response, own, caller) => {
      expect(response.body.total.scans).toBe(own.scans);
      // The whole workspace, by link: only its own links, and only its own scans.
      const whole = await send("GET", { path: "/api/analytics?group_by=link" }, await own.credentials(caller));
      expect(whole.body.total.scans).toBe(own.scans);
      const ids = whole.body.data.map((row: { key: string }) => row.key);
      expect(await db().link.count({ where: { id: { in: ids }, workspaceId: own.id } })).toBe(ids.length);
    },
  },
  // MCP answers 200 with the tool's verdict inside: archiving a fresh link runs the same table as DELETE /api/links/{id}.
  "POST /api/mcp": {
    scope: "any",
    request: async (target) => ({
      path: "/api/mcp",
      headers: { accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "archive_link", arguments: { id: await target.freshLink() } },
      },
    }),
    status: 200,
    namesResource: true,
    check: async (response, _own, caller) => {
      const refused = caller === "member" || caller === "viewer";
      expect(response.body.result.isError ?? false, `archive_link as ${caller}`).toBe(refused);
      if (refused) expect(response.body.result.content[0].text).toMatch(/allows editing only the links you created/);
    },
  },
};

/** Credentials that act on a workspace (and so name one in X-Workspace-Id); the rest are a deployment's secrets or none. */
const WORKSPACE_MODES: readonly AuthMode[] = ["workspace", "session", "api_key", "payment_or_workspace", "optional_workspace"];

const OPERATION_KEYS = OPERATIONS.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`);

let a: TeamWorkspace;
let b: TeamWorkspace;

beforeAll(async () => {
  process.env.OPERATOR_TOKEN = "operator-token-for-the-matrix-0123456789";
  process.env.CRON_SECRET = "cron-secret-for-the-matrix";
  resetConfig();
  // Different numbers of links, so a count from the wrong workspace would show.
  a = await TeamWorkspace.create("alpha", 3, 2);
  b = await TeamWorkspace.create("bravo", 7, 5);
}, 120_000);

afterAll(() => {
  delete process.env.OPERATOR_TOKEN;
  delete process.env.CRON_SECRET;
  vi.restoreAllMocks();
  resetConfig();
});

async function send(method: string, request: Request, credentials: Credentials): Promise<ApiResponse> {
  return call(method, request.path, {
    token: credentials.token,
    headers: { ...credentials.headers, ...request.headers },
    ...(request.rawBody !== undefined ? { rawBody: request.rawBody } : request.body !== undefined ? { body: request.body } : {}),
  });
}

/** Every string of `other` that appears in the answer (body as text, and header values). */
function leaksOf(response: ApiResponse, other: TeamWorkspace): string[] {
  const type = response.headers.get("content-type") ?? "";
  const text = /json|text|svg/.test(type) ? response.text : "";
  const headers = [...response.headers.values()].join("\n");
  return [...other.secrets].filter((secret) => text.includes(secret) || headers.includes(secret));
}

/**
 * The scope column, on the owner's own workspace: the declaration names the fixture's scope; the
 * owner's app with exactly that scope gets what the owner gets (any scope: every one), and with
 * every other scope (none: every scope) it is refused with 403 before anything else.
 */
async function appColumn(
  method: string,
  fixture: Fixture,
  operation: (typeof OPERATIONS)[number],
  own: TeamWorkspace,
  ownersStatus: number,
  failures: string[],
): Promise<void> {
  const declared = operation.scope ?? "none";
  if (declared !== fixture.scope) failures.push(`the declaration's scope is ${declared}, the matrix says ${fixture.scope}`);
  const where = `${own.label} owner's app`;
  const apps: [string, readonly Scope[], number][] =
    declared === "none"
      ? [["every scope", SCOPES, 403]]
      : declared === "any"
        ? [["every scope", SCOPES, ownersStatus]]
        : [
            [`only ${declared}`, [declared], ownersStatus],
            [`every scope but ${declared}`, SCOPES.filter((scope) => scope !== declared), 403],
          ];
  for (const [label, scopes, expected] of apps) {
    const request = await fixture.request(own);
    const response = await send(method, request, { token: await own.appToken(scopes), headers: request.headers ?? {} });
    await importFinished(response);
    if (response.status !== expected)
      failures.push(`${where} with ${label}: expected ${expected}, got ${response.status} ${response.text.slice(0, 200)}`);
    else if (expected === 403 && !/scope|connected with OAuth/.test(response.body?.error ?? ""))
      failures.push(`${where} with ${label}: the 403 does not name the scope: ${response.text.slice(0, 200)}`);
  }
}

/** An import the app started runs to its end first: the workspace's cap on imports under way is the role callers' to meet. */
async function importFinished(response: ApiResponse): Promise<void> {
  const id = response.status === 202 ? response.body?.id : undefined;
  if (typeof id !== "string" || !id.startsWith("imp_")) return;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const row = await db().import.findUnique({ where: { id }, select: { status: true } });
    if (!row || ["done", "failed", "cancelled"].includes(row.status)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the authorisation matrix", () => {
  it("has an entry for every operation of the API, and none for an operation that is gone", () => {
    const missing = OPERATION_KEYS.filter((key) => !FIXTURES[key]);
    const stale = Object.keys(FIXTURES).filter((key) => !OPERATION_KEYS.includes(key));
    expect(missing, "Add an entry to FIXTURES in tests/api/authorization-matrix.test.ts for each new operation").toEqual([]);
    expect(stale).toEqual([]);
  });

  it.each(OPERATIONS.map((operation) => [`${operation.method.toUpperCase()} ${operation.path}`, operation] as const))(
    "%s",
    async (key, operation) => {
      const fixture = FIXTURES[key];
      if (!fixture)
        throw new Error(
          `${key} has no entry in FIXTURES (tests/api/authorization-matrix.test.ts): add one saying what each role and the API key get.`,
        );
      const method = operation.method.toUpperCase();
      const actsOnWorkspace = WORKSPACE_MODES.includes(operation.auth);
      const failures: string[] = [];
      const note = (scenario: string, response: ApiResponse, expected: string) =>
        failures.push(`${scenario}: expected ${expected}, got ${response.status} ${response.text.slice(0, 200)}`);

      for (const [own, other] of [
        [a, b],
        [b, a],
      ] as const) {
        for (const caller of CALLERS) {
          const expected = typeof fixture.status === "number" ? fixture.status : fixture.status[caller];
          const where = `${own.label} ${caller}`;

          // The request first: preparing it may retire the API key (a claim revokes the live one), and the credentials then mint a new one.
          const request = await fixture.request(own);
          const response = await send(method, request, await own.credentials(caller));
          if (response.status !== expected) note(`${where}, own workspace`, response, String(expected));
          else if (fixture.check && response.status < 300) {
            await fixture
              .check(response, own, caller)
              .catch((error: Error) => failures.push(`${where}, own workspace: ${error.message}`));
          }
          for (const leak of leaksOf(response, other))
            failures.push(`${where}, own workspace: the answer carries ${other.label}'s "${leak}"`);

          if (fixture.namesResource && actsOnWorkspace) {
            const foreignRequest = await fixture.request(other);
            const foreign = await send(method, foreignRequest, await own.credentials(caller));
            const ghostRequest = await fixture.request(new Ghost());
            const ghost = await send(method, ghostRequest, await own.credentials(caller));
            // The whole answer, not only the status: a tool's verdict travels in a 200's body.
            if (foreign.status !== ghost.status || foreign.text !== ghost.text) {
              note(
                `${where}, ${other.label}'s resource`,
                foreign,
                `the answer for a resource that does not exist (${ghost.status} ${ghost.text.slice(0, 120)})`,
              );
            }
            // A refusal: an error status, or (MCP) a tool result marked isError.
            if (foreign.status < 400 && foreign.body?.result?.isError !== true)
              note(`${where}, ${other.label}'s resource`, foreign, "a refusal");
            for (const leak of leaksOf(foreign, other))
              failures.push(`${where}, ${other.label}'s resource: the answer carries "${leak}"`);
          }

          if (actsOnWorkspace && caller === "owner") await appColumn(method, fixture, operation, own, expected, failures);

          if (actsOnWorkspace) {
            const crossingRequest = await fixture.request(caller === "api_key" ? own : other);
            const crossing = await send(method, crossingRequest, await own.credentials(caller, other.id));
            // A session naming a workspace it is not a member of: 401 before anything else. An API key ignores the header.
            const crossingExpected = caller === "api_key" ? expected : 401;
            if (crossing.status !== crossingExpected)
              note(`${where}, X-Workspace-Id of ${other.label}`, crossing, String(crossingExpected));
            for (const leak of leaksOf(crossing, other))
              failures.push(`${where}, X-Workspace-Id of ${other.label}: the answer carries "${leak}"`);
          }
        }
      }
      expect(failures).toEqual([]);
    },
    // Each call runs ten times (two workspaces, five callers); a logo operation first uploads a logo,
    // which is decoded in a process of its own: ten of those took over 20 s on a loaded machine.
    60_000,
  );
});
