import { ConfigError, config, settleConfig } from "@/lib/config";
import { readOrCreateDevValue } from "@/lib/config/dev-values";
import { randomBytes } from "node:crypto";

/**
 * Outside production the built-in identity provider may run without AUTH_SECRET: a random
 * secret is generated once and kept in the data folder, so tokens survive restarts.
 */
export async function ensureAuthSecret(): Promise<void> {
  const { AUTH_SECRET, AUTH_JWKS_URL, NODE_ENV } = config();
  if (AUTH_SECRET || AUTH_JWKS_URL) return;
  if (NODE_ENV === "production") {
    throw new ConfigError("Configuration error: AUTH_SECRET or AUTH_JWKS_URL must be set in production.");
  }
  settleConfig({ AUTH_SECRET: await readOrCreateDevValue("auth-secret", () => randomBytes(32).toString("base64url")) });
}
