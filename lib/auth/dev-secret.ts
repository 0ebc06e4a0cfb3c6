import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ConfigError, config, resetConfig } from "@/lib/config";

/**
 * Outside production the built-in identity provider may run without AUTH_SECRET: a random
 * secret is generated once and kept in the data folder, so tokens survive restarts.
 */
export async function ensureAuthSecret(): Promise<void> {
  const { AUTH_SECRET, AUTH_JWKS_URL, NODE_ENV, DATA_DIR } = config();
  if (AUTH_SECRET || AUTH_JWKS_URL) return;
  if (NODE_ENV === "production") {
    throw new ConfigError("Configuration error: AUTH_SECRET or AUTH_JWKS_URL must be set in production.");
  }
  const file = path.resolve(DATA_DIR, "auth-secret");
  const secret = await readFile(file, "utf8").catch(async () => {
    const generated = randomBytes(32).toString("base64url");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, generated, { mode: 0o600, flag: "wx" }).catch(() => undefined);
    return readFile(file, "utf8");
  });
  process.env.AUTH_SECRET = secret.trim();
  resetConfig();
}
