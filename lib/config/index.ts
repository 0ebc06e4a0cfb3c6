import { z } from "zod";

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

const hostPort = z
  .string()
  .regex(/^[^\s:]+:\d{1,5}$/, "must be host:port, for example 127.0.0.1:53");

const positiveInt = z.coerce.number().int().positive();

const configSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  BASE_URL: httpUrl.optional(),
  SHORT_BASE_URL: httpUrl.optional(),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, "must be a redis:// URL").optional(),
  UPSTASH_REDIS_REST_URL: httpUrl.optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  AUTH_JWKS_URL: httpUrl.optional(),
  AUTH_ISSUER: z.string().min(1).default("permalink"),
  AUTH_AUDIENCE: z.string().min(1).default("permalink-api"),
  WRITE_RATE_LIMIT_PER_MINUTE: positiveInt.default(60),
  SAFETY_BLOCKLIST_FILE: z.string().optional(),
  DNS_RESOLVER: hostPort.optional(),
  WEB_RISK_API_KEY: z.string().optional(),
  QUARANTINE_CHECK_SPACING_SECONDS: positiveInt.default(3600),
  QUARANTINE_RELEASE_DAYS: positiveInt.default(7),
  QUARANTINE_RELEASE_CHECKS: positiveInt.default(3),
  SAFETY_VERDICT_CACHE_SECONDS: z.coerce.number().int().min(0).default(60),
  RESOLUTION_CACHE_SECONDS: z.coerce.number().int().min(0).default(60),
  ABUSE_REPORT_THRESHOLD: positiveInt.default(3),
  OPERATOR_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  CRON_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  RECHECK_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(300),
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  API_KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,15}$/, "must be 2 to 16 lower-case letters or digits, starting with a letter")
    .default("plk"),
  DATA_DIR: z.string().min(1).default(".data"),
});

export type Config = z.infer<typeof configSchema> & { BASE_URL: string; SHORT_BASE_URL: string };

export class ConfigError extends Error {}

const SECRET_VARIABLES = new Set(["AUTH_SECRET", "UPSTASH_REDIS_REST_TOKEN", "WEB_RISK_API_KEY", "OPERATOR_TOKEN", "CRON_SECRET"]);

/** Validates an environment; the first problem becomes one line naming the variable. A blank value counts as unset. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ""));
  const result = configSchema.safeParse(given);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const variable = issue.path.join(".");
    throw new ConfigError(`Configuration error: ${variable} ${issue.message} (got ${shown(variable, given[variable])}).`);
  }
  const parsed = result.data;
  const baseUrl = parsed.BASE_URL ?? `http://localhost:${parsed.PORT}`;
  return { ...parsed, BASE_URL: baseUrl, SHORT_BASE_URL: parsed.SHORT_BASE_URL ?? baseUrl };
}

/** What an error line may repeat of a value: never a secret, never a password inside a URL. */
function shown(variable: string, value: string | undefined): string {
  if (value === undefined) return "nothing";
  if (SECRET_VARIABLES.has(variable)) return "a value that is not shown";
  return JSON.stringify(value.replace(/\/\/[^/@\s]*@/, "//***@"));
}

let cached: Config | undefined;

/** The process configuration, validated once. Tests call resetConfig() after changing process.env. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

export function resetConfig(): void {
  cached = undefined;
}
