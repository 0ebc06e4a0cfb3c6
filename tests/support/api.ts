import { mintSessionToken } from "@/lib/auth/session-tokens";
import type { PlanChoice } from "@/lib/billing/plans";
import { startCheckout } from "@/lib/billing/service";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";

type RouteModule = Record<string, unknown>;
type RouteEntry = { pattern: RegExp; load: () => Promise<RouteModule> };

// Every route file of the app (app/**/route.ts), loaded on first use.
const ROUTE_FILES = import.meta.glob<RouteModule>("/app/**/route.ts");

/** Every route of the app as its file names it: /api/links/[id], /api/[...path], /billing/local/checkout/[id]/complete. */
export const ROUTE_TEMPLATES = Object.keys(ROUTE_FILES).map((file) => file.replace(/^\/app/, "").replace(/\/route\.ts$/, ""));

/**
 * The app's routes, matched the way Next's file router matches them: static segments first,
 * then dynamic ones ([id]), a catch-all ([...path]) last.
 */
const ROUTES: RouteEntry[] = Object.entries(ROUTE_FILES)
  .map(([file, load]) => ({
    segments: file
      .replace(/^\/app/, "")
      .replace(/\/route\.ts$/, "")
      .split("/")
      .slice(1),
    load,
  }))
  .sort((a, b) => rank(a.segments) - rank(b.segments))
  .map(({ segments, load }) => ({ pattern: new RegExp(`^/${segments.map(segmentPattern).join("/")}$`), load }));

/** The names of catch-all parameters ([...path]): their value is a list of segments. */
const CATCH_ALL_PARAMS = new Set(
  Object.keys(ROUTE_FILES).flatMap((file) => [...file.matchAll(/\[\.\.\.(\w+)\]/g)].map((match) => match[1]!)),
);

function segmentPattern(segment: string): string {
  const catchAll = /^\[\.\.\.(\w+)\]$/.exec(segment);
  if (catchAll) return `(?<${catchAll[1]}>.+)`;
  const dynamic = /^\[(\w+)\]$/.exec(segment);
  if (dynamic) return `(?<${dynamic[1]}>[^/]+)`;
  return segment.replace(/[.]/g, "\\.");
}

/**
 * Lower for routes Next prefers when several match: a catch-all last, then more dynamic segments
 * later, then fewer static ones (/api/auth/[...nextauth] before /api/[...path]).
 */
function rank(segments: string[]): number {
  const catchAll = segments.some((segment) => segment.startsWith("[..."));
  const dynamic = segments.filter((segment) => segment.startsWith("[")).length;
  return (catchAll ? 1000 : 0) + dynamic * 100 - (segments.length - dynamic);
}

// Suites read response fields directly and assert them; the body is whatever JSON the route sent.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiResponse = { status: number; headers: Headers; body: any; text: string; bytes: Buffer };

/** `rawBody` is sent as it is (a string or bytes, e.g. an image); `body` as JSON. */
type CallOptions = { token?: string; body?: unknown; rawBody?: string | Uint8Array; headers?: Record<string, string> };

/** Calls a route handler in-process with a real Request, as Next would. */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const raw =
    typeof options.rawBody === "string" || options.rawBody === undefined ? options.rawBody : new Uint8Array(options.rawBody);
  const body = raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const response = await dispatch(new Request(new URL(path, APP_ORIGIN), { method, headers, body }));
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString("utf8");
  return { status: response.status, headers: response.headers, text, bytes, body: parseJson(text) };
}

export const APP_ORIGIN = "http://app.test.example";

/**
 * A fetch that reaches the app's route handlers in-process: for real HTTP clients (payment agents)
 * in tests. Like Next, it decodes the path's parameters and answers HEAD with GET's handler, without the body.
 */
export async function dispatch(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const route = ROUTES.find((entry) => entry.pattern.test(url.pathname));
  if (!route) throw new Error(`No route for ${url.pathname}`);
  const encoded = url.pathname.match(route.pattern)!.groups ?? {};
  const params = Object.fromEntries(Object.entries(encoded).map(([name, value]) => [name, decodeParam(name, value)]));
  const method = request.method === "HEAD" ? "GET" : request.method;
  const handler = (await route.load())[method] as ((request: Request, context: unknown) => Promise<Response>) | undefined;
  if (!handler) throw new Error(`${url.pathname} has no ${request.method} handler`);
  const response = await handler(request, { params: Promise.resolve(params) });
  return request.method === "HEAD" ? new Response(null, { status: response.status, headers: response.headers }) : response;
}

/** A catch-all ([...path]) is its segments, each decoded; a dynamic segment ([id]) is one decoded string. */
function decodeParam(name: string, value: string): string | string[] {
  return CATCH_ALL_PARAMS.has(name) ? value.split("/").map(decodeURIComponent) : decodeURIComponent(value);
}

export function sessionFor(email: string): Promise<string> {
  return mintSessionToken(email);
}

let counter = 0;

export type TestUser = { email: string; token: string; userId: string; workspaceId: string };

/** `false` for a workspace that never subscribed; otherwise the plan its subscription is on (default: unlimited, monthly). */
type NewUserOptions = { subscription?: false | PlanChoice };

/**
 * A fresh signed-in user with their personal workspace, for tests that must not share rows.
 * The workspace is subscribed, because creating and editing links needs a subscription.
 */
export async function newUser(label = "user", options: NewUserOptions = {}): Promise<TestUser> {
  const email = `${label}-${process.pid}-${++counter}-${Date.now()}@example.com`;
  const token = await sessionFor(email);
  const { workspace } = (await call("GET", "/api/workspaces", { token })).body;
  const { id: userId } = await db().user.findFirstOrThrow({ where: { email }, select: { id: true } });
  const user = { email, token, userId, workspaceId: workspace.id };
  if (options.subscription !== false) await subscribe(user, options.subscription);
  return user;
}

/**
 * Subscribes the user's workspace the way a customer does with the local provider: checkout
 * (the service behind POST /api/billing/checkout, so the test's write budget stays untouched),
 * then the checkout page's "Complete purchase" form.
 */
export async function subscribe(
  user: Pick<TestUser, "userId" | "workspaceId">,
  choice: PlanChoice = { plan: "unlimited", interval: "month" },
): Promise<void> {
  const { url } = await startCheckout(
    { kind: "session", userId: user.userId, workspaceId: user.workspaceId, role: "owner" },
    choice,
  );
  const completed = await call("POST", `${new URL(url).pathname}/complete`);
  if (completed.status !== 303) throw new Error(`The local checkout did not complete: ${completed.status} ${completed.text}`);
}

/** Adds `user` to `workspaceId` with `role`, and returns call options that act there. */
export async function joinWorkspace(user: TestUser, workspaceId: string, role: "owner" | "admin" | "member" | "viewer") {
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

/** Creates `count` links for a new person through `POST /api/links`, and returns their slugs. */
export async function newLinks(count: number, label: string): Promise<string[]> {
  const user = await newUser(label);
  const slugs: string[] = [];
  for (let index = 0; index < count; index++) {
    const response = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: `https://example.com/${label}-${index}` },
    });
    if (response.status !== 201) throw new Error(`Creating a link answered ${response.status}: ${JSON.stringify(response.body)}`);
    slugs.push(response.body.slug);
  }
  return slugs;
}

const cookiePairs = (headers: Headers) =>
  headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .filter((pair) => !pair.endsWith("="));

/** Signs in through next-auth's own routes (the development sign-in: the same session cookie as a magic link's). */
export async function dashboardSignIn(email: string, headers: Record<string, string> = {}) {
  const csrf = await call("GET", "/api/auth/csrf", { headers });
  const csrfCookies = cookiePairs(csrf.headers);
  const signedIn = await call("POST", "/api/auth/callback/development", {
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", cookie: csrfCookies.join("; ") },
    rawBody: new URLSearchParams({ email, csrfToken: csrf.body.csrfToken, callbackUrl: "/dashboard", json: "true" }).toString(),
  });
  const session = cookiePairs(signedIn.headers).find((pair) => pair.includes("next-auth.session-token"));
  if (!session) throw new Error(`No session cookie: ${signedIn.status} ${signedIn.text}`);
  return { session, csrfCookies, csrfToken: csrf.body.csrfToken as string, setCookies: signedIn.headers.getSetCookie() };
}
