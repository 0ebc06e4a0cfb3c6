import { normaliseEmail } from "@/lib/auth/email";
import { limitSignInEmail } from "@/lib/auth/sign-in-limit";
import { config } from "@/lib/config";
import { MAX_FORM_BODY_BYTES, readTextBody } from "@/lib/http/body";
import { cameOverHttps } from "@/lib/http/client-address";
import { parseCookies } from "@/lib/http/cookies";
import { DomainError } from "@/lib/http/errors";
import { internalError, json } from "@/lib/http/respond";
import { sameOriginUrl } from "@/lib/http/return-url";
import { log } from "@/lib/log";
import NextAuth from "next-auth";
import { authOptions } from "./next-auth";
import { servedAndLogged } from "./request-log";

type Context = { params: Promise<{ nextauth?: string[] }> };

/**
 * next-auth's own browser protocol (sign-in, callbacks, the magic link, its CSRF token, sign-out),
 * through next-auth's request-and-response handler given the request's parts. (Its App Router
 * handler reads next/headers, which exists only inside Next's request scope; this one also answers
 * the in-process suites.) The body is read with the service's own size bound, and a failure
 * keeps the service's promise: JSON with an `error` sentence.
 */
export function nextAuthRoute(request: Request, context: Context): Promise<Response> {
  // One request-log line like every API route's: the route's pattern and the status, never the address signing in.
  return servedAndLogged(request, "/api/auth/[...nextauth]", () => answerSignIn(request, context));
}

async function answerSignIn(request: Request, context: Context): Promise<Response> {
  try {
    const nextauth = (await context.params).nextauth ?? [];
    const body = request.method === "POST" ? withOwnCallbackUrl(await readBody(request), "callbackUrl") : undefined;
    if (asksForMagicLink(nextauth, body)) {
      const address = normaliseEmail(String(body.email));
      if (address !== null) await limitSignInEmail(address, request);
    }
    const req = {
      method: request.method,
      query: withOwnCallbackUrl(
        withPlainErrorCode({ ...Object.fromEntries(new URL(request.url).searchParams), nextauth }),
        "callbackUrl",
      ),
      headers: Object.fromEntries(request.headers),
      cookies: withOwnCallbackUrl(parseCookies(request.headers.get("cookie")), ...CALLBACK_URL_COOKIES),
      body,
    };
    const res = new CollectedResponse();
    await NextAuth(req as never, res as never, authOptions({ overHttps: cameOverHttps(request) }));
    return await jsonFailures(res.toResponse());
  } catch (error) {
    if (error instanceof DomainError) return signInFailure(error);
    log().error({ err: error }, "unhandled sign-in error");
    return internalError();
  }
}

const CALLBACK_URL_COOKIES = ["next-auth.callback-url", "__Secure-next-auth.callback-url"];

/** The e-mail sign-in's form post (POST /api/auth/signin/email), which sends a magic link. */
function asksForMagicLink(nextauth: string[], body: Record<string, unknown> | undefined): body is { email: unknown } {
  return nextauth.join("/") === "signin/email" && typeof body?.email === "string";
}

/**
 * A refusal as next-auth's own client reads one: `url` carries the error code the sign-in page
 * and form put in words (app/signin/errors.ts), `error` the sentence for anyone else.
 */
function signInFailure(error: DomainError): Response {
  if (error.code === "rate_limited") {
    const url = new URL("/signin?error=EmailRateLimited", config().BASE_URL).href;
    return json({ error: error.message, url }, 429, error.headers);
  }
  return json({ error: error.message }, error.code === "too_large" ? 413 : 400);
}

/** next-auth's error codes are words (Verification, EmailSignin, …). */
const ERROR_CODE = /^[A-Za-z]{1,64}$/;

/**
 * next-auth's error route writes its code (`?error=` or `/error/{code}`) into the redirect's
 * Location unencoded, so a code with a control character in it made an invalid header and a 500:
 * anything but a word becomes its generic code, Default.
 */
function withPlainErrorCode(query: Record<string, unknown> & { nextauth: string[] }): Record<string, unknown> {
  const [action, code] = query.nextauth;
  const error = query.error ?? code;
  if (action !== "error" || error === undefined || (typeof error === "string" && ERROR_CODE.test(error))) return query;
  return { ...query, error: "Default" };
}

/**
 * next-auth answers 500 to a callback URL it cannot parse ("x", "not a url"), in the query, the
 * form or its cookie, before its redirect callback ever sees it: each is made an absolute URL on
 * our origin here, or dropped when it leads elsewhere (the redirect callback keeps the same rule).
 */
function withOwnCallbackUrl<Fields extends Record<string, unknown> | undefined>(fields: Fields, ...names: string[]): Fields {
  if (!fields) return fields;
  const kept: Record<string, unknown> = { ...fields };
  for (const name of names) {
    if (typeof kept[name] !== "string") continue;
    const own = sameOriginUrl(kept[name], config().BASE_URL);
    if (own) kept[name] = own;
    else delete kept[name];
  }
  return kept as Fields;
}

/** JSON or a form, as next-auth's pages take them; anything else is no body. */
async function readBody(request: Request): Promise<Record<string, unknown> | undefined> {
  const type = request.headers.get("content-type") ?? "";
  const text = await readTextBody(request, MAX_FORM_BODY_BYTES);
  if (type.includes("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(text));
  if (!type.includes("application/json")) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    throw new DomainError("invalid_request", "The sign-in request's body is not valid JSON.");
  }
}

async function jsonFailures(response: Response): Promise<Response> {
  if (response.status < 400 || response.headers.get("content-type")?.startsWith("application/json")) return response;
  const text = (await response.text()).replace(/^Error: /, "").trim();
  return json({ error: text || "This sign-in request cannot be answered." }, response.status);
}

/** The slice of a Node response next-auth's handler writes to: status, headers (Set-Cookie as a list), a body. */
class CollectedResponse {
  private statusCode = 200;
  private readonly headers = new Map<string, string | string[]>();
  private body: string | null = null;

  status(code: number): this {
    this.statusCode = code;
    return this;
  }

  setHeader(name: string, value: string | string[]): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }

  getHeader(name: string): string | string[] | undefined {
    return this.headers.get(name.toLowerCase());
  }

  end(): void {}

  json(value: unknown): void {
    this.setHeader("Content-Type", "application/json");
    this.body = JSON.stringify(value);
  }

  send(value: unknown): void {
    if (typeof value === "string" || value === undefined || value === null) this.body = value ?? null;
    else this.json(value);
  }

  toResponse(): Response {
    const headers = new Headers();
    for (const [name, value] of this.headers) for (const item of [value].flat()) headers.append(name, item);
    const bodyless = this.statusCode === 204 || this.statusCode === 304 || (this.statusCode >= 300 && this.statusCode < 400);
    return new Response(bodyless ? null : this.body, { status: this.statusCode, headers });
  }
}
