import { config } from "@/lib/config";
import { parseCookies } from "@/lib/http/cookies";
import { DomainError, forbidden, unauthenticated } from "@/lib/http/errors";
import type { RouteSpec } from "@/lib/http/operation";
import { log } from "@/lib/log";
import { type DashboardUser, dashboardPrincipal, findDashboardUser } from "@/lib/workspaces/sign-in";
import type { Principal } from "@/lib/workspaces/types";
import { getToken } from "next-auth/jwt";
import { cookies } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { inCustomerWords } from "./customer-words";
import { type BodyOf, type FieldNames, FieldRefusal, formBody } from "./form-body";
import { authOptions } from "./next-auth";
import { runOperation } from "./pipeline";

/** The cookie naming the workspace the dashboard acts on; membership is checked on every request. */
export const WORKSPACE_COOKIE = "workspace";

export type DashboardContext = { user: DashboardUser; principal: Principal };

/** The signed-in person and the principal they act as, for a page or server action; null when nobody is signed in. Once per request. */
export const dashboardContext = cache(async (): Promise<DashboardContext | null> =>
  contextFromCookies(Object.fromEntries((await cookies()).getAll().map((cookie) => [cookie.name, cookie.value]))),
);

/**
 * The dashboard's session is next-auth's signed (and encrypted) JWT cookie, read here from the
 * cookies alone (never an Authorization header); its subject is the user's id, and it counts only
 * while the dashboard session it names (sid) has not ended. The chosen
 * workspace comes from its own cookie and counts only for a member.
 */
async function contextFromCookies(cookieJar: Record<string, string>): Promise<DashboardContext | null> {
  const { secret } = authOptions();
  const token = await getToken({
    req: { cookies: cookieJar, headers: {} } as unknown as Parameters<typeof getToken>[0]["req"],
    secret,
    // The cookie's name says how it was set: __Secure- when the sign-in came over HTTPS.
    secureCookie: Object.keys(cookieJar).some((name) => name.startsWith("__Secure-next-auth.session-token")),
  });
  const user = token?.sub && typeof token.sid === "string" ? await findDashboardUser(token.sub, token.sid) : null;
  if (!user) return null;
  return { user, principal: await dashboardPrincipal(user, cookieJar[WORKSPACE_COOKIE]) };
}

/** For pages: the context, or off to sign-in and back. */
export async function requireDashboard(returnTo: string): Promise<DashboardContext> {
  const context = await dashboardContext();
  if (!context) redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
  return context;
}

/**
 * For pages that show one thing named by their address (a link, an import): the thing, or the
 * dashboard's "Nothing here" page when the capability finds none. Await it before anything
 * streams (outside any Suspense boundary, in a segment without loading.tsx), so the answer's
 * status is still 404; the page's slow part streams afterwards under its own Suspense.
 */
export async function foundOrNotFound<Value>(lookup: Promise<Value>): Promise<Value> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof DomainError && error.code === "not_found") notFound();
    throw error;
  }
}

/** A refusal names the form field it is about (the body's field name), so the form can show it beside that field. */
export type ActionResult<Value> = { ok: true; value: Value } | { ok: false; error: string; field?: string };

/**
 * A dashboard action runs as the API route of the same operation does: the signed-in principal
 * (the cookie session instead of a bearer token), then runOperation's order (lib/api/pipeline.ts):
 * the same write budget, the operation's own body schema with its refusals tied to the form's
 * fields, the same capability function. Errors are told in the customer's words (inCustomerWords).
 * Server actions are POSTs that Next refuses from another origin, which is their cross-site
 * request protection.
 */
export async function dashboardAction<const Spec extends Pick<RouteSpec, "scope" | "write" | "body">, Value>(
  spec: Spec,
  input: unknown,
  handler: (principal: Principal, body: BodyOf<Spec>) => Promise<Value>,
  names: FieldNames = {},
): Promise<ActionResult<Value>> {
  try {
    const context = await dashboardContext();
    if (!context) throw unauthenticated("Your session has ended; sign in again.");
    const { principal } = context;
    const value = await runOperation({
      principal,
      operation: spec,
      input: () => formBody(spec, input, names),
      call: (body) => handler(principal, body),
    });
    return { ok: true, value };
  } catch (error) {
    if (error instanceof FieldRefusal) return { ok: false, error: inCustomerWords(error.message), field: error.field };
    if (error instanceof DomainError) return { ok: false, error: inCustomerWords(error.message) };
    log().error({ err: error }, "unhandled dashboard error");
    return { ok: false, error: "Something went wrong on our side; nothing was changed. Please try again." };
  }
}

/**
 * The principal of a dashboard route (auth mode `dashboard`): the cookie session, 401 without one.
 * A cookie travels with cross-site requests too, so anything but GET and HEAD must come from the
 * app's own origin (the browser's Origin header, or Sec-Fetch-Site when it sends no Origin).
 */
export async function dashboardRoutePrincipal(request: Request): Promise<Principal> {
  if (request.method !== "GET" && request.method !== "HEAD" && !sameOrigin(request)) {
    throw forbidden("This request did not come from the dashboard's own pages.");
  }
  const context = await contextFromCookies(parseCookies(request.headers.get("cookie")));
  if (!context) throw unauthenticated("Sign in to the dashboard first.");
  return context.principal;
}

function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin) return origin === new URL(config().BASE_URL).origin;
  return request.headers.get("sec-fetch-site") === "same-origin";
}
