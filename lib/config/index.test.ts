import { runCommand } from "@/tests/support/command";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CONFIG_VARIABLES, ConfigError, config, parseConfig, resetConfig, settleConfig, settledValues } from "./index";

const VALID_SECRET = "x".repeat(32);

function configErrorFrom(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`parseConfig accepted ${JSON.stringify(env)}`);
}

describe("parseConfig defaults", () => {
  it("serves on port 3000 at http://localhost:3000 with the plk key prefix, 60 writes a minute and 12,000 imported links a minute", () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      BASE_URL: "http://localhost:3000",
      SHORT_BASE_URL: "http://localhost:3000",
      API_KEY_PREFIX: "plk",
      WRITE_RATE_LIMIT_PER_MINUTE: 60,
      IMPORT_WRITES_PER_MINUTE: 12_000,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it("lets a session token live at most 30 days unless AUTH_TOKEN_MAX_LIFETIME_SECONDS says otherwise", () => {
    expect(parseConfig({}).AUTH_TOKEN_MAX_LIFETIME_SECONDS).toBe(30 * 24 * 60 * 60);
    expect(parseConfig({ AUTH_TOKEN_MAX_LIFETIME_SECONDS: "3600" }).AUTH_TOKEN_MAX_LIFETIME_SECONDS).toBe(3600);
    expect(configErrorFrom({ AUTH_TOKEN_MAX_LIFETIME_SECONDS: "0" }).message).toMatch(
      /^Configuration error: AUTH_TOKEN_MAX_LIFETIME_SECONDS /,
    );
  });

  it("counts no proxy in front, except Vercel's edge on Vercel, unless TRUSTED_PROXY_HOPS says otherwise", () => {
    expect(parseConfig({}).TRUSTED_PROXY_HOPS).toBe(0);
    expect(parseConfig({ VERCEL: "1" }).TRUSTED_PROXY_HOPS).toBe(1);
    expect(parseConfig({ VERCEL: "1", TRUSTED_PROXY_HOPS: "0" }).TRUSTED_PROXY_HOPS).toBe(0);
    expect(parseConfig({ TRUSTED_PROXY_HOPS: "2" }).TRUSTED_PROXY_HOPS).toBe(2);
  });

  it("listens on every interface unless HOST names an IP address or localhost", () => {
    expect(parseConfig({}).HOST).toBeUndefined();
    expect(parseConfig({ HOST: "127.0.0.1" }).HOST).toBe("127.0.0.1");
    expect(parseConfig({ HOST: "::1" }).HOST).toBe("::1");
    expect(parseConfig({ HOST: "0.0.0.0" }).HOST).toBe("0.0.0.0");
    expect(parseConfig({ HOST: "LocalHost" }).HOST).toBe("localhost");
    expect(configErrorFrom({ HOST: "example.com" }).message).toBe(
      'Configuration error: HOST must be an IP address to listen on (such as 127.0.0.1 or ::1) or localhost (got "example.com").',
    );
    for (const host of ["[::1]", "127.0.0.1:3000", "256.0.0.1", "http://127.0.0.1"])
      expect(configErrorFrom({ HOST: host }).message).toMatch(/^Configuration error: HOST must be an IP address /);
  });

  it("derives BASE_URL from PORT when BASE_URL is unset", () => {
    expect(parseConfig({ PORT: "4100" })).toMatchObject({
      PORT: 4100,
      BASE_URL: "http://localhost:4100",
      SHORT_BASE_URL: "http://localhost:4100",
    });
  });

  it("falls back to BASE_URL for SHORT_BASE_URL, and keeps an explicit one", () => {
    expect(parseConfig({ BASE_URL: "https://permalink.example" }).SHORT_BASE_URL).toBe("https://permalink.example");
    expect(parseConfig({ BASE_URL: "https://permalink.example", SHORT_BASE_URL: "https://pl.example" })).toMatchObject({
      BASE_URL: "https://permalink.example",
      SHORT_BASE_URL: "https://pl.example",
    });
  });

  it("treats blank optional values as unset", () => {
    const config = parseConfig({ DATABASE_URL: "  ", REDIS_URL: "", AUTH_SECRET: "", DNS_RESOLVER: "" });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.AUTH_SECRET).toBeUndefined();
    expect(config.DNS_RESOLVER).toBeUndefined();
  });

  it("accepts a complete valid environment", () => {
    const config = parseConfig({
      PORT: "8080",
      DATABASE_URL: "postgres://db.internal:5432/permalink",
      REDIS_URL: "rediss://cache.internal:6380",
      DNS_RESOLVER: "127.0.0.1:53",
      API_KEY_PREFIX: "acme2",
      AUTH_SECRET: VALID_SECRET,
      WRITE_RATE_LIMIT_PER_MINUTE: "5",
    });
    expect(config).toMatchObject({
      PORT: 8080,
      API_KEY_PREFIX: "acme2",
      WRITE_RATE_LIMIT_PER_MINUTE: 5,
      DNS_RESOLVER: "127.0.0.1:53",
    });
  });
});

describe("parseConfig refusals", () => {
  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["HOST", "example.com"],
    ["BASE_URL", "ftp://x"],
    ["DATABASE_URL", "mysql://root@localhost:3306/permalink"],
    ["REDIS_URL", "http://cache.internal:6379"],
    ["DNS_RESOLVER", "nonsense"],
    ["API_KEY_PREFIX", "Bad_Prefix"],
    ["AUTH_SECRET", "too-short"],
    ["WRITE_RATE_LIMIT_PER_MINUTE", "0"],
    ["IMPORT_WRITES_PER_MINUTE", "0"],
  ])("refuses %s=%s with one line naming the variable", (variable, value) => {
    const error = configErrorFrom({ [variable]: value });
    expect(error.message).not.toContain("\n");
    expect(error.message).toMatch(new RegExp(`^Configuration error: ${variable} `));
  });
});

describe("the billing provider", () => {
  const STRIPE = {
    STRIPE_SECRET_KEY: "sk_test_abc123",
    STRIPE_WEBHOOK_SECRET: "whsec_abc123",
    STRIPE_PRICE_STARTER_MONTH: "price_starter",
    STRIPE_PRICE_UNLIMITED_MONTH: "price_unlimited_m",
    STRIPE_PRICE_UNLIMITED_YEAR: "price_unlimited_y",
  };

  it("is local outside production, Stripe when its key is set, and none in production unless BILLING_PROVIDER=local", () => {
    expect(parseConfig({}).BILLING_PROVIDER).toBe("local");
    expect(parseConfig(STRIPE).BILLING_PROVIDER).toBe("stripe");
    expect(parseConfig({ NODE_ENV: "production" }).BILLING_PROVIDER).toBeUndefined();
    expect(parseConfig({ NODE_ENV: "production", BILLING_PROVIDER: "local" }).BILLING_PROVIDER).toBe("local");
    expect(parseConfig({ ...STRIPE, BILLING_PROVIDER: "local" }).BILLING_PROVIDER).toBe("local");
    expect(parseConfig({}).BILLING_PAST_DUE_GRACE_DAYS).toBe(7);
  });

  it.each([
    ["STRIPE_SECRET_KEY", { BILLING_PROVIDER: "stripe" }],
    ["STRIPE_WEBHOOK_SECRET", { ...STRIPE, STRIPE_WEBHOOK_SECRET: "" }],
    ["STRIPE_PRICE_UNLIMITED_YEAR", { ...STRIPE, STRIPE_PRICE_UNLIMITED_YEAR: "" }],
    ["STRIPE_PRICE_STARTER_MONTH", { ...STRIPE, STRIPE_PRICE_STARTER_MONTH: "19.00" }],
    ["STRIPE_API_BASE", { ...STRIPE, STRIPE_API_BASE: "localhost:12111" }],
    ["BILLING_PROVIDER", { BILLING_PROVIDER: "paypal" }],
  ])("refuses a Stripe setup without a valid %s, naming it", (variable, env) => {
    expect(configErrorFrom(env).message).toMatch(new RegExp(`^Configuration error: ${variable} `));
  });

  it("never repeats the Stripe secrets", () => {
    const error = configErrorFrom({ STRIPE_SECRET_KEY: "pk_live_not-a-secret-key" });
    expect(error.message).not.toContain("pk_live");
    expect(configErrorFrom({ ...STRIPE, STRIPE_WEBHOOK_SECRET: "oops-hunter2" }).message).not.toContain("hunter2");
  });
});

describe("public addresses", () => {
  it("are origins: a trailing slash is dropped, a path is refused", () => {
    expect(parseConfig({ BASE_URL: "https://permalink.example/", SHORT_BASE_URL: "https://pl.example/" })).toMatchObject({
      BASE_URL: "https://permalink.example",
      SHORT_BASE_URL: "https://pl.example",
    });
    expect(configErrorFrom({ SHORT_BASE_URL: "https://pl.example/go" }).message).toMatch(
      /^Configuration error: SHORT_BASE_URL must be an origin/,
    );
  });
});

describe("what an error line repeats", () => {
  it("treats a blank value as unset", () => {
    const config = parseConfig({ PORT: "", BASE_URL: " ", DATABASE_URL: "" });
    expect(config).toMatchObject({ PORT: 3000, BASE_URL: "http://localhost:3000" });
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it("never repeats a secret", () => {
    const error = configErrorFrom({ AUTH_SECRET: "hunter2-is-my-password" });
    expect(error.message).not.toContain("hunter2");
    expect(error.message).toContain("AUTH_SECRET");
  });

  it("hides the credentials inside a connection string", () => {
    const error = configErrorFrom({ DATABASE_URL: "mysql://root:hunter2@db.example/app" });
    expect(error.message).not.toContain("hunter2");
    expect(error.message).toContain("mysql://***@db.example/app");
  });
});

describe("NATS credentials", () => {
  const SEED = `SU${"A".repeat(56)}`;

  it("are taken from NATS_URL (user:password or a token) or from their own settings, one way only", () => {
    expect(parseConfig({ NATS_URL: "nats://scans:s%40cret@n1:4222,nats://scans:s%40cret@n2:4222" }).NATS_URL).toBeDefined();
    expect(parseConfig({ NATS_URL: "tls://n1:4222", NATS_USER: "scans", NATS_PASSWORD: "secret" }).NATS_USER).toBe("scans");
    expect(parseConfig({ NATS_URL: "nats://n1:4222", NATS_NKEY_SEED: SEED }).NATS_NKEY_SEED).toBe(SEED);
    expect(configErrorFrom({ NATS_URL: "nats://a:b@n1:4222,nats://c:d@n2:4222" }).message).toMatch(
      /^Configuration error: NATS_URL must give the same credentials in every URL/,
    );
    expect(configErrorFrom({ NATS_URL: "nats://a:b@n1:4222", NATS_TOKEN: "t0ken" }).message).toMatch(
      /^Configuration error: NATS_URL must be authenticated one way, not with credentials in NATS_URL and NATS_TOKEN /,
    );
    expect(configErrorFrom({ NATS_URL: "nats://n1:4222", NATS_PASSWORD: "secret" }).message).toMatch(
      /^Configuration error: NATS_PASSWORD needs NATS_USER /,
    );
    expect(configErrorFrom({ NATS_URL: "nats://n1:4222", NATS_NKEY_SEED: "SUnot-a-seed" }).message).toMatch(
      /^Configuration error: NATS_NKEY_SEED must be a user's NKey seed/,
    );
    expect(configErrorFrom({ NATS_URL: "nats://n1:4222", NATS_TLS_CERT_FILE: "/etc/nats/client.pem" }).message).toMatch(
      /^Configuration error: NATS_TLS_KEY_FILE is required with a client certificate/,
    );
    expect(configErrorFrom({ NATS_URL: "nats://n1:4222/path" }).message).toMatch(/^Configuration error: NATS_URL must be /);
  });

  it("are never repeated in an error line, in any URL of the list", () => {
    const error = configErrorFrom({ NATS_URL: "nats://a:hunter2@n1:4222,nats://b:hunter3@n2:4222" });
    expect(error.message).not.toMatch(/hunter/);
    expect(configErrorFrom({ NATS_URL: "nats://n1:4222", NATS_NKEY_SEED: "SUhunter2" }).message).not.toContain("hunter2");
  });
});

describe("a command started with a wrong value", () => {
  it("exits 1 with a single fatal log line naming the variable", async () => {
    const result = await runCommand("node_modules/.bin/tsx", ["scripts/migrate.ts"], {
      ...process.env,
      PORT: "abc",
      LOG_LEVEL: "info",
    });
    expect(result.exitCode).toBe(1);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "fatal", msg: expect.stringMatching(/^Configuration error: PORT /) });
    expect(result.stderr).toBe("");
  }, 30_000);
});

describe("the documented variables", () => {
  /** Set by the runtime, not by an operator. */
  const UNDOCUMENTED = ["NODE_ENV"];
  /** Read by the test suite, not by the service. */
  const TEST_ONLY = ["TEST_DATABASE_URL"];
  const exampleVariables = [...readFileSync(".env.example", "utf8").matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!);
  const documented = readFileSync("docs/configuration.md", "utf8");

  it("are exactly the variables the service reads, in .env.example and docs/configuration.md", () => {
    const read = CONFIG_VARIABLES.filter((variable) => !UNDOCUMENTED.includes(variable));
    expect(exampleVariables.filter((variable) => !TEST_ONLY.includes(variable)).sort()).toEqual([...read].sort());
    expect(read.filter((variable) => !documented.includes(`\`${variable}\``))).toEqual([]);
  });

  it("no longer name ABUSE_REPORT_THRESHOLD: reports never block a link", () => {
    expect(CONFIG_VARIABLES).not.toContain("ABUSE_REPORT_THRESHOLD");
    expect(documented).not.toContain("ABUSE_REPORT_THRESHOLD");
  });
});

describe("the process configuration", () => {
  const nodeEnv = process.env.NODE_ENV;
  afterEach(() => {
    (process.env as Record<string, string | undefined>).NODE_ENV = nodeEnv;
    resetConfig();
  });

  it("is read without NODE_ENV, and again when Next sets NODE_ENV at start, so a built app never runs as development", () => {
    delete (process.env as Record<string, string | undefined>).NODE_ENV;
    resetConfig();
    expect(config().NODE_ENV).toBe("development");
    expect(config()).toBe(config());
    (process.env as Record<string, string | undefined>).NODE_ENV = "production";
    expect(config().NODE_ENV).toBe("production");
  });

  it("reads what start-up settled over the environment, and hands it to child processes", () => {
    const recipient = "0x" + "ab".repeat(20);
    expect(config().PAYMENT_RECIPIENT).not.toBe(recipient);
    settleConfig({ PAYMENT_RECIPIENT: recipient });
    expect(config().PAYMENT_RECIPIENT).toBe(recipient);
    expect(settledValues()).toMatchObject({ PAYMENT_RECIPIENT: recipient });
  });
});

describe("the configuration a process reads", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetConfig();
  });

  it("is read again when Next sets NODE_ENV, and stays production once it is", () => {
    vi.stubEnv("NODE_ENV", "development");
    resetConfig();
    expect(config().NODE_ENV).toBe("development");
    vi.stubEnv("NODE_ENV", "production");
    expect(config().NODE_ENV).toBe("production");
    vi.stubEnv("NODE_ENV", "development");
    expect(config().NODE_ENV).toBe("production");
    resetConfig();
    expect(config().NODE_ENV).toBe("development");
  });
});
