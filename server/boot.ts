import { ensureAuthSecret } from "@/lib/auth/dev-secret";
import { ConfigError, config, settleConfig } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { logAppliedMigrations, migrateAtStart } from "@/lib/db/migrate-at-start";
import { log } from "@/lib/log";
import { ensurePaymentSettings } from "@/lib/payments/dev-settings";
import { hostname } from "node:os";
import { EMBEDDED_POOL_SIZE, startEmbeddedDatabase, type EmbeddedDatabase } from "./embedded-database";

/** Validates configuration (one clear line and exit 1 when wrong) and settles the auth secret. */
export async function loadConfiguration(): Promise<void> {
  const shellHost = dropShellHost();
  try {
    config();
    await ensureAuthSecret();
  } catch (error) {
    exitOnConfigError(error);
  }
  if (shellHost)
    log().info(
      `HOST is this machine's name (${shellHost}), as tcsh sets it, not an address: ignored, so npm start listens on every interface (set HOST to an IP address to choose one)`,
    );
}

/**
 * tcsh exports HOST as this machine's name (full or short): the shell's variable, not an address to
 * listen on. Dropped before configuration is read, it neither stops the start nor reaches the
 * application process. Returns the value dropped, if it was.
 */
function dropShellHost(): string | undefined {
  const host = process.env.HOST?.trim();
  if (!host || !isMachineName(host, hostname())) return undefined;
  delete process.env.HOST;
  return host;
}

/** Whether `host` is `machineName`, full or short, in any case; never `localhost`, which is an address to listen on. */
export function isMachineName(host: string, machineName: string): boolean {
  const [given, name] = [host.toLowerCase(), machineName.toLowerCase()];
  return given !== "localhost" && (given === name || given === name.split(".")[0]);
}

function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError) {
    log().fatal(error.message);
    process.exit(1);
  }
  throw error;
}

/**
 * What the server and the migrate command do first: load configuration, settle the payment
 * settings, start the embedded database when DATABASE_URL is unset, and apply pending migrations.
 * The server (`serving`) starts even when its database does not answer, and migrates once it does
 * (lib/db/migrate-at-start.ts); the migrate command fails.
 */
export async function boot(options: { serving?: boolean } = {}): Promise<{ embedded?: EmbeddedDatabase }> {
  await loadConfiguration();
  await ensurePaymentSettings().catch(exitOnConfigError);
  let embedded: EmbeddedDatabase | undefined;
  if (!config().DATABASE_URL) {
    embedded = await startEmbeddedDatabase(config().DATA_DIR);
    settleConfig({ DATABASE_URL: embedded.url, DATABASE_POOL_SIZE: String(EMBEDDED_POOL_SIZE) });
    log().info({ dataDir: `${config().DATA_DIR}/postgres` }, "embedded PostgreSQL started; set DATABASE_URL to use your own");
  }
  if (options.serving) await migrateAtStart(config().DATABASE_URL!);
  else logAppliedMigrations(await migrate(config().DATABASE_URL!));
  return { embedded };
}
