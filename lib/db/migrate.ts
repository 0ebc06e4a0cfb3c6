import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/** Prisma's own advisory lock key, so this runner and `prisma migrate deploy` never interleave. */
const PRISMA_MIGRATE_LOCK = 72707369;

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export const MIGRATIONS_DIR = path.resolve(process.cwd(), "prisma/migrations");

type Migration = { name: string; sql: string; checksum: string };
type AppliedMigration = { migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null };

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  // Only the self-hosted server and `npm run migrate` read the migrations, from the project's folder: the bundle's
  // tracer is told not to follow a path it cannot see (it would include the whole project in every function).
  const entries = await readdir(/*turbopackIgnore: true*/ dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(/*turbopackIgnore: true*/ path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

/**
 * Applies pending migrations and records them in `_prisma_migrations` the way
 * `prisma migrate deploy` does, so an operator can switch to the Prisma CLI unchanged.
 * Returns the names of the migrations it applied.
 */
export async function migrate(databaseUrl: string, dir = MIGRATIONS_DIR): Promise<string[]> {
  // A bounded connect: a database host that drops packets, or one that accepts and never answers,
  // fails the attempt in seconds (the start then serves without it and retries) instead of waiting forever.
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000, keepAlive: true });
  // A connection that ends under the migration fails its query; unheard, its 'error' event would end the process.
  client.on("error", () => undefined);
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK]);
    await client.query(MIGRATIONS_TABLE);
    const applied = await appliedMigrations(client);
    const pending = (await readMigrations(dir)).filter((migration) => isPending(migration, applied));
    for (const migration of pending) await apply(client, migration);
    return pending.map((migration) => migration.name);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK]).catch(() => undefined);
    await client.end();
  }
}

async function appliedMigrations(client: pg.Client): Promise<Map<string, AppliedMigration>> {
  const { rows } = await client.query<AppliedMigration>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
  );
  return new Map(rows.map((row) => [row.migration_name, row]));
}

function isPending(migration: Migration, applied: Map<string, AppliedMigration>): boolean {
  const record = applied.get(migration.name);
  if (!record) return true;
  if (!record.finished_at) {
    throw new Error(`Migration ${migration.name} started but did not finish; resolve it before starting again.`);
  }
  if (record.checksum !== migration.checksum) {
    throw new Error(`Migration ${migration.name} was edited after it was applied (checksum differs).`);
  }
  return false;
}

async function apply(client: pg.Client, migration: Migration): Promise<void> {
  const id = randomUUID();
  await client.query("BEGIN");
  try {
    await client.query(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`, [
      id,
      migration.checksum,
      migration.name,
    ]);
    await client.query(migration.sql);
    await client.query(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`, [id]);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
  }
}
