import { mintSessionToken } from "@/lib/auth/session-tokens";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";

type RouteModule = Record<string, unknown>;
type RouteEntry = { pattern: RegExp; load: () => Promise<RouteModule> };

/** The app's API routes, matched the way Next's file router would match them. */
const ROUTES: RouteEntry[] = [
  { pattern: /^\/api\/links$/, load: () => import("@/app/api/links/route") },
  { pattern: /^\/api\/links\/(?<id>[^/]+)$/, load: () => import("@/app/api/links/[id]/route") },
  { pattern: /^\/api\/billing\/claim$/, load: () => import("@/app/api/billing/claim/route") },
  { pattern: /^\/api\/workspaces$/, load: () => import("@/app/api/workspaces/route") },
  { pattern: /^\/api\/members$/, load: () => import("@/app/api/members/route") },
  { pattern: /^\/api\/openapi\.json$/, load: () => import("@/app/api/openapi.json/route") },
  { pattern: /^\/api\/abuse-reports$/, load: () => import("@/app/api/abuse-reports/route") },
  { pattern: /^\/api\/operator\/links\/(?<id>[^/]+)\/status$/, load: () => import("@/app/api/operator/links/[id]/status/route") },
  { pattern: /^\/api\/cron\/recheck$/, load: () => import("@/app/api/cron/recheck/route") },
  { pattern: /^\/api\/(?<path>.+)$/, load: () => import("@/app/api/[...path]/route") },
];

export type ApiResponse = { status: number; headers: Headers; body: any; text: string };

type CallOptions = { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> };

/** Calls a route handler in-process with a real Request, as Next would. */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
  const url = new URL(path, "http://app.test.example");
  const route = ROUTES.find((entry) => entry.pattern.test(url.pathname));
  if (!route) throw new Error(`No route for ${path}`);
  const params = url.pathname.match(route.pattern)!.groups ?? {};
  const handler = (await route.load())[method] as ((request: Request, context: unknown) => Promise<Response>) | undefined;
  if (!handler) throw new Error(`${path} has no ${method} handler`);
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const response = await handler(new Request(url, { method, headers, body }), { params: Promise.resolve(params) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: parseJson(text) };
}

export function sessionFor(email: string): Promise<string> {
  return mintSessionToken(email);
}

let counter = 0;

export type TestUser = { email: string; token: string; userId: string; workspaceId: string };

/** A fresh signed-in user with their personal workspace, for tests that must not share rows. */
export async function newUser(label = "user"): Promise<TestUser> {
  const email = `${label}-${process.pid}-${++counter}-${Date.now()}@example.com`;
  const token = await sessionFor(email);
  const { workspace } = (await call("GET", "/api/workspaces", { token })).body;
  const { id: userId } = await db().user.findFirstOrThrow({ where: { email }, select: { id: true } });
  return { email, token, userId, workspaceId: workspace.id };
}

/** Adds `user` to `workspaceId` with `role`, and returns call options that act there. */
export async function joinWorkspace(user: TestUser, workspaceId: string, role: "owner" | "admin" | "member") {
  await db().membership.create({ data: { id: newId("mem"), workspaceId, userId: user.userId, role } });
  return { token: user.token, headers: { "x-workspace-id": workspaceId } };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
