import { processSingleton, requestContext, type RequestContext } from "@/lib/process-singleton";
import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const DEFAULT_LEVEL: LogLevel = "info";
const CENSOR = "[redacted]";

/**
 * Header names that carry a credential: bearer keys and tokens, payment credentials and receipts,
 * Stripe's signature, a protected link's password.
 */
const SECRET_HEADERS = [
  "authorization",
  "cookie",
  "set-cookie",
  "payment-signature",
  "payment-required",
  "payment-response",
  "payment-receipt",
  "x-payment",
  "stripe-signature",
  "link-password",
];

/**
 * Field names that hold a secret wherever they appear (at the top or one level down): keys, tokens,
 * credentials, and the settings that are secrets.
 */
const SECRET_FIELDS = [
  "api_key",
  "apiKey",
  "key",
  "token",
  "sessionToken",
  "session_token",
  "credential",
  "paymentCredential",
  "signature",
  "secret",
  "password",
  // OAuth's secrets as its forms name them (RFC 6749, RFC 7636): tokens, the verifier, a client secret.
  "access_token",
  "refresh_token",
  "code_verifier",
  "client_secret",
  "AUTH_SECRET",
  "MPP_SECRET_KEY",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "OPERATOR_TOKEN",
  "CRON_SECRET",
  "UPSTASH_REDIS_REST_TOKEN",
  "WEB_RISK_API_KEY",
  "DATABASE_URL",
  "REDIS_URL",
  "pass",
  "NATS_URL",
  "NATS_PASSWORD",
  "NATS_TOKEN",
  "NATS_NKEY_SEED",
];

/**
 * What pino's own redaction censors in every line: the secret headers wherever a request or its
 * headers are logged, and the secret fields at the top of a line or one level down. Messages are
 * never given a secret in the first place; this is the net under that rule.
 */
/**
 * An OAuth code (exchangeable for tokens) where a line would carry one: at the top, or in a logged
 * form, body or query. Not `*.code`: that would censor every error's own code (`err.code`: P2002,
 * ECONNRESET), which is no secret and what an operator reads first.
 */
const CODE_PATHS = ["code", ...["body", "form", "query", "params", "oauth"].map((parent) => `${parent}.code`)];

export const REDACTED_PATHS = [
  ...SECRET_HEADERS.flatMap((name) => [`headers["${name}"]`, `req.headers["${name}"]`, `request.headers["${name}"]`]),
  ...SECRET_FIELDS.flatMap((name) => [name, `*.${name}`]),
  ...CODE_PATHS,
];

export type { RequestContext } from "@/lib/process-singleton";

/** Runs `work` with `context` added to every line it logs (the request id, route and method). */
export function withRequestContext<Result>(context: RequestContext, work: () => Result): Result {
  return requestContext().run(context, work);
}

/** LOG_LEVEL when it names a level, else info (lib/config refuses a wrong value at start with a sentence). */
export function levelFrom(value: string | undefined): LogLevel {
  return LOG_LEVELS.includes(value as LogLevel) ? (value as LogLevel) : DEFAULT_LEVEL;
}

/** One JSON line per event on `destination` (stdout by default), secrets censored. */
export function createLogger(destination?: DestinationStream, level = levelFrom(process.env.LOG_LEVEL)): Logger {
  const options = {
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: CENSOR },
    mixin: () => requestContext().getStore() ?? {},
  };
  return destination ? pino(options, destination) : pino(options);
}

const processLogger = processSingleton("log", () => createLogger());

/** The process's logger. */
export function log(): Logger {
  return processLogger.get();
}
