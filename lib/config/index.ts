import { LOG_LEVELS } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import ipaddr from "ipaddr.js";
import { z } from "zod";
import { NatsUrlError, natsServers, type NatsServers } from "./nats";

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/** A public origin the app builds addresses on: no path, query or fragment; stored without a trailing slash. */
const origin = httpUrl
  .refine(
    (value) => ["/", ""].includes(new URL(value).pathname) && !new URL(value).search && !new URL(value).hash,
    "must be an origin such as https://go.example.com, with no path",
  )
  .transform((value) => value.replace(/\/+$/, ""));

const hostPort = z.string().regex(/^[^\s:]+:\d{1,5}$/, "must be host:port, for example 127.0.0.1:53");

/** A network as an operator writes it: an address, a slash and a prefix length (10.20.0.0/16, fd12::/48). */
function isCidr(network: string): boolean {
  try {
    ipaddr.parseCIDR(network);
    return true;
  } catch {
    return false;
  }
}

const positiveInt = z.coerce.number().int().positive();

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address");

/** A comma-separated list of IP addresses of one family (several front ends may share the short host). */
const addressList = (family: "v4" | "v6") =>
  z
    .string()
    .transform((value) =>
      value
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(
          family === "v4"
            ? z.ipv4({ error: "must be IPv4 addresses, comma-separated" })
            : z.ipv6({ error: "must be IPv6 addresses, comma-separated" }),
        )
        .min(1),
    );

/** Domain names of certificate authorities, comma-separated (CAA issuer names such as letsencrypt.org). */
const issuerList = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[a-z0-9.-]+$/, "must be CA domain names, comma-separated")).min(1));

/**
 * An Ed25519 private key: PKCS #8 PEM, or its 32-byte seed in base64 or base64url (what `openssl genpkey -algorithm
 * ed25519` writes, or `openssl rand -base64 32`). Its shape is checked here (this module runs on the edge too, without
 * node:crypto); lib/escrow/keys.ts reads the key itself and says so when it is not Ed25519.
 */
const ed25519PrivateKey = z
  .string()
  .trim()
  .regex(
    /^(?:-----BEGIN PRIVATE KEY-----[A-Za-z0-9+/=\s]+-----END PRIVATE KEY-----|[A-Za-z0-9+/_-]{43}=?)$/,
    "must be an Ed25519 private key: PKCS #8 PEM, or a 32-byte seed in base64 (openssl rand -base64 32)",
  );

const stripePriceId = z.string().regex(/^price_\w+$/, "must be a Stripe price id (price_…)");

const configSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(
      z.union([z.ipv4(), z.ipv6(), z.literal("localhost")], {
        error: "must be an IP address to listen on (such as 127.0.0.1 or ::1) or localhost",
      }),
    )
    .optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }).default("info"),
  BASE_URL: origin.optional(),
  SHORT_BASE_URL: origin.optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  READ_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  READ_REPLICA_MAX_LAG_MS: positiveInt.default(2_000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// URL")
    .optional(),
  NATS_URL: z
    .string()
    .regex(/^(nats|tls):\/\/[^\s,]+(,(nats|tls):\/\/[^\s,]+)*$/, "must be nats:// URLs, comma-separated")
    .optional(),
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  NATS_TOKEN: z.string().optional(),
  NATS_NKEY_SEED: z
    .string()
    .regex(/^SU[A-Z2-7]{56}$/, "must be a user's NKey seed (SU…, 58 characters)")
    .optional(),
  NATS_CREDS_FILE: z.string().optional(),
  NATS_TLS_CA_FILE: z.string().optional(),
  NATS_TLS_CERT_FILE: z.string().optional(),
  NATS_TLS_KEY_FILE: z.string().optional(),
  NATS_SCAN_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, _ or -")
    .default("PERMALINK_SCANS"),
  NATS_SCAN_STREAM_MAX_BYTES: positiveInt.default(1024 ** 3),
  NATS_SCAN_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  NATS_SCAN_MAX_DELIVERIES: z.coerce.number().int().min(1).max(10_000).default(400),
  UPSTASH_REDIS_REST_URL: httpUrl.optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  AUTH_JWKS_URL: httpUrl.optional(),
  AUTH_ISSUER: z.string().min(1).default("permalink"),
  AUTH_AUDIENCE: z.string().min(1).default("permalink-api"),
  AUTH_TOKEN_MAX_LIFETIME_SECONDS: positiveInt.default(30 * 24 * 60 * 60),
  GITHUB_CLIENT_ID: z.string().optional(),
  GITHUB_CLIENT_SECRET: z.string().optional(),
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_CLIENT_SECRET: z.string().optional(),
  WRITE_RATE_LIMIT_PER_MINUTE: positiveInt.default(60),
  IMPORT_WRITES_PER_MINUTE: positiveInt.default(12_000),
  SAFETY_BLOCKLIST_FILE: z.string().optional(),
  DNS_RESOLVER: hostPort.optional(),
  WEB_RISK_API_KEY: z.string().optional(),
  QUARANTINE_CHECK_SPACING_SECONDS: positiveInt.default(3600),
  QUARANTINE_RELEASE_DAYS: positiveInt.default(7),
  QUARANTINE_RELEASE_CHECKS: positiveInt.default(3),
  SAFETY_VERDICT_CACHE_SECONDS: z.coerce.number().int().min(0).default(60),
  SAFETY_UNKNOWN_VERDICT_CACHE_SECONDS: z.coerce.number().int().min(0).default(5),
  SAFETY_CHECK_DEADLINE_MS: positiveInt.default(250),
  RESOLUTION_CACHE_SECONDS: z.coerce.number().int().min(0).default(60),
  OPERATOR_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  CRON_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  RECHECK_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(300),
  WEBHOOK_DELIVERY_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(5),
  SCHEDULED_REPOINT_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(30),
  WEBHOOK_PRIVATE_NETWORKS: z
    .string()
    .default("")
    .transform((value) =>
      value
        .split(",")
        .map((network) => network.trim())
        .filter(Boolean),
    )
    .refine(
      (networks) => networks.every(isCidr),
      "must be a comma-separated list of networks in CIDR form, such as 10.20.0.0/16",
    ),
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).optional(),
  TRUSTED_COUNTRY_HEADER: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(["x-vercel-ip-country", "cf-ipcountry"], { error: "must be x-vercel-ip-country or cf-ipcountry" }))
    .optional(),
  SCAN_RETENTION_DAYS: positiveInt.default(90),
  API_KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,15}$/, "must be 2 to 16 lower-case letters or digits, starting with a letter")
    .default("plk"),
  DATA_DIR: z.string().min(1).default(".data"),
  LINK_PRICE: z
    .string()
    .regex(/^\d+(\.\d+)?$/, "must be a decimal number such as 0.50")
    .refine((price) => Number(price) > 0, "must be more than zero")
    .default("0.50"),
  PAYMENT_NETWORK: z
    .string()
    .regex(/^eip155:[1-9]\d*$/, "must be a CAIP-2 EVM network such as eip155:8453")
    .default("eip155:84532"),
  PAYMENT_ASSET: evmAddress.default("0x036CbD53842c5426634e7929541eC2318f3dCF7e"),
  PAYMENT_ASSET_NAME: z.string().min(1).default("USDC"),
  PAYMENT_ASSET_VERSION: z.string().min(1).default("2"),
  PAYMENT_ASSET_DECIMALS: z.coerce.number().int().min(0).max(36).default(6),
  PAYMENT_RECIPIENT: evmAddress.optional(),
  X402_FACILITATOR_URL: httpUrl.default("https://x402.org/facilitator"),
  MPP_SECRET_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  BILLING_PROVIDER: z.enum(["stripe", "local"]).optional(),
  BILLING_PAST_DUE_GRACE_DAYS: z.coerce.number().int().min(0).max(60).default(7),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_\w+$/, "must be a Stripe secret or restricted key (sk_… or rk_…)")
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\w+$/, "must be a webhook signing secret (whsec_…)")
    .optional(),
  STRIPE_API_BASE: httpUrl.optional(),
  STRIPE_PRICE_STARTER_MONTH: stripePriceId.optional(),
  STRIPE_PRICE_UNLIMITED_MONTH: stripePriceId.optional(),
  STRIPE_PRICE_UNLIMITED_YEAR: stripePriceId.optional(),
  SHORT_HOST_IPV4: addressList("v4").optional(),
  SHORT_HOST_IPV6: addressList("v6").optional(),
  TLS_PROVIDER: z.enum(["caddy", "vercel"]).optional(),
  TLS_CAA_ISSUERS: issuerList.default(["letsencrypt.org"]),
  VERCEL_TOKEN: z.string().min(1).optional(),
  VERCEL_PROJECT_ID: z.string().min(1).optional(),
  VERCEL_TEAM_ID: z.string().min(1).optional(),
  VERCEL_API_BASE: httpUrl.default("https://api.vercel.com"),
  // Where an import by API token pages through each peer's API (docs/imports.md): tests and operators only.
  DUB_API_BASE: httpUrl.default("https://api.dub.co"),
  REBRANDLY_API_BASE: httpUrl.default("https://api.rebrandly.com"),
  SHORTIO_API_BASE: httpUrl.default("https://api.short.io"),
  DOMAIN_CHECK_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(300),
  DOMAIN_EXPIRY_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(3600),
  RDAP_BOOTSTRAP_FILE: z.string().min(1).optional(),
  CERTIFICATE_CHECK_PORT: z.coerce.number().int().min(1).max(65535).default(443),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s/]+/, "must be an smtp:// or smtps:// URL such as smtps://user:password@smtp.example.com:465")
    .optional(),
  EMAIL_FROM: z
    .string()
    .min(3)
    .max(320)
    .regex(/@/, "must be a sender address such as Permalink <no-reply@example.com>")
    .optional(),
  INVITATION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(14),
  ESCROW_SIGNING_KEY: ed25519PrivateKey.optional(),
  ESCROW_DIRECTORY: z.string().min(1).optional(),
  ESCROW_KEEP: z.coerce.number().int().min(1).max(3650).default(30),
  ESCROW_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(3600),
});

/** Every environment variable the service reads (.env.example documents each). */
export const CONFIG_VARIABLES = Object.keys(configSchema.shape);

const STRIPE_SETTINGS_REQUIRED = [
  "STRIPE_WEBHOOK_SECRET",
  "STRIPE_PRICE_STARTER_MONTH",
  "STRIPE_PRICE_UNLIMITED_MONTH",
  "STRIPE_PRICE_UNLIMITED_YEAR",
] as const;

/**
 * Stripe runs when chosen or when its key is set; the local provider (no real payment) runs by
 * default outside production, and in production only when BILLING_PROVIDER=local says so.
 * Without either, a production deployment has no billing provider (checkout answers 503).
 */
const configWithBilling = configSchema
  .transform((parsed) => ({
    ...parsed,
    BILLING_PROVIDER: effectiveBillingProvider(parsed),
    TLS_PROVIDER: parsed.TLS_PROVIDER ?? (parsed.VERCEL_TOKEN ? ("vercel" as const) : ("caddy" as const)),
  }))
  .superRefine((parsed, context) => {
    if (parsed.TLS_PROVIDER === "vercel") {
      for (const variable of ["VERCEL_TOKEN", "VERCEL_PROJECT_ID"] as const) {
        if (!parsed[variable])
          context.addIssue({ code: "custom", path: [variable], message: "is required when TLS_PROVIDER is vercel" });
      }
    }
    natsSettingsIssues(parsed).forEach(([variable, message]) => context.addIssue({ code: "custom", path: [variable], message }));
    if (parsed.BILLING_PROVIDER !== "stripe") return;
    if (!parsed.STRIPE_SECRET_KEY) {
      context.addIssue({ code: "custom", path: ["STRIPE_SECRET_KEY"], message: "is required when BILLING_PROVIDER is stripe" });
    }
    for (const variable of STRIPE_SETTINGS_REQUIRED) {
      if (!parsed[variable])
        context.addIssue({ code: "custom", path: [variable], message: "is required when billing runs on Stripe" });
    }
  });

/**
 * NATS takes one way of authenticating: user and password (in NATS_URL or NATS_USER and
 * NATS_PASSWORD), a token (in NATS_URL or NATS_TOKEN), an NKey seed or a .creds file; and a client
 * certificate comes with its key.
 */
function natsSettingsIssues(parsed: z.infer<typeof configSchema>): [string, string][] {
  let inUrl: NatsServers["credentials"] = null;
  if (parsed.NATS_URL) {
    try {
      inUrl = natsServers(parsed.NATS_URL).credentials;
    } catch (error) {
      if (error instanceof NatsUrlError) return [["NATS_URL", error.message]];
      throw error;
    }
  }
  if (parsed.NATS_PASSWORD && !parsed.NATS_USER) return [["NATS_PASSWORD", "needs NATS_USER"]];
  const ways = [
    inUrl && "credentials in NATS_URL",
    parsed.NATS_USER && "NATS_USER",
    parsed.NATS_TOKEN && "NATS_TOKEN",
    parsed.NATS_NKEY_SEED && "NATS_NKEY_SEED",
    parsed.NATS_CREDS_FILE && "NATS_CREDS_FILE",
  ].filter(Boolean);
  if (ways.length > 1) return [["NATS_URL", `must be authenticated one way, not with ${ways.join(" and ")}`]];
  if (Boolean(parsed.NATS_TLS_CERT_FILE) !== Boolean(parsed.NATS_TLS_KEY_FILE))
    return [[parsed.NATS_TLS_CERT_FILE ? "NATS_TLS_KEY_FILE" : "NATS_TLS_CERT_FILE", "is required with a client certificate"]];
  return [];
}

function effectiveBillingProvider(parsed: z.infer<typeof configSchema>): "stripe" | "local" | undefined {
  if (parsed.BILLING_PROVIDER) return parsed.BILLING_PROVIDER;
  if (parsed.STRIPE_SECRET_KEY) return "stripe";
  return parsed.NODE_ENV === "production" ? undefined : "local";
}

export type Config = z.infer<typeof configWithBilling> & { BASE_URL: string; SHORT_BASE_URL: string; TRUSTED_PROXY_HOPS: number };

export class ConfigError extends Error {}

const SECRET_VARIABLES = new Set([
  "AUTH_SECRET",
  "UPSTASH_REDIS_REST_TOKEN",
  "WEB_RISK_API_KEY",
  "OPERATOR_TOKEN",
  "CRON_SECRET",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "MPP_SECRET_KEY",
  "VERCEL_TOKEN",
  "GITHUB_CLIENT_SECRET",
  "GOOGLE_CLIENT_SECRET",
  "NATS_PASSWORD",
  "NATS_TOKEN",
  "NATS_NKEY_SEED",
]);

/**
 * On Vercel (which sets VERCEL=1 for the running app) its edge stands in front of every request and
 * writes X-Forwarded-For afresh with the client's address: one trusted proxy.
 */
const VERCEL_EDGE_HOPS = 1;

/** Validates an environment; the first problem becomes one line naming the variable. A blank value counts as unset. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ""));
  const result = configWithBilling.safeParse(given);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const variable = issue.path.join(".");
    throw new ConfigError(`Configuration error: ${variable} ${issue.message} (got ${shown(variable, given[variable])}).`);
  }
  const parsed = result.data;
  const baseUrl = parsed.BASE_URL ?? `http://localhost:${parsed.PORT}`;
  return {
    ...parsed,
    BASE_URL: baseUrl,
    SHORT_BASE_URL: parsed.SHORT_BASE_URL ?? baseUrl,
    TRUSTED_PROXY_HOPS: parsed.TRUSTED_PROXY_HOPS ?? (given.VERCEL === "1" ? VERCEL_EDGE_HOPS : 0),
  };
}

/** What an error line may repeat of a value: never a secret, never a password inside a URL. */
function shown(variable: string, value: string | undefined): string {
  if (value === undefined) return "nothing";
  if (SECRET_VARIABLES.has(variable)) return "a value that is not shown";
  return JSON.stringify(value.replace(/\/\/[^/@\s]*@/g, "//***@"));
}

/** What the start script settled for this process over the environment (generated development values, the embedded database). */
export type SettledValues = Partial<Record<Exclude<keyof z.input<typeof configSchema>, "NODE_ENV">, string>>;

const settled = processSingleton("configSettled", (): SettledValues => ({}));
const parsed = processSingleton<{ nodeEnv: string | undefined; config: Config } | undefined>("config", () => undefined);

/**
 * The process configuration: the environment and what start-up settled over it, validated once.
 * Next sets NODE_ENV when it starts a server without one (production for a built app); the
 * configuration is read again then, so a built app never runs as development. Once it is
 * production it stays so without asking: a read of process.env costs about 0.35 µs, and the
 * redirect calls config() five times. Tests call resetConfig() after changing process.env.
 */
export function config(): Config {
  const current = parsed.peek();
  if (current?.nodeEnv === "production") return current.config;
  const nodeEnv = process.env.NODE_ENV;
  if (current && current.nodeEnv === nodeEnv) return current.config;
  const fresh = parseConfig({ ...process.env, ...settled.get() });
  parsed.set({ nodeEnv, config: fresh });
  return fresh;
}

export function resetConfig(): void {
  parsed.reset();
}

/**
 * Values decided at start, read over the environment from now on by every bundle of this process;
 * the application process it forks gets them in its environment (settledValues). Nothing writes
 * process.env at run time (tests/project/process-state.test.ts).
 */
export function settleConfig(values: SettledValues): void {
  Object.assign(settled.get(), values);
  resetConfig();
}

/** What start-up settled, for the environment of a child process that must share it. */
export function settledValues(): Readonly<SettledValues> {
  return settled.get();
}

/**
 * A local deployment: BASE_URL (default http://localhost:$PORT) is a loopback address, so every
 * page, short link and sign-in link it builds points at this machine. A public deployment must set
 * BASE_URL to its public origin (its short links would be wrong otherwise), so it is never local.
 */
export function isLocalDeployment(settings: Pick<Config, "BASE_URL"> = config()): boolean {
  const host = new URL(settings.BASE_URL).hostname;
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}
