import { migrate, MIGRATIONS_DIR } from "@/lib/db/migrate";
import { type EmbeddedDatabase, startEmbeddedDatabase } from "@/server/embedded-database";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, describe, expect, inject, it } from "vitest";
import { adminQuery, withDatabase } from "../support/database";

const { serverUrl, prefix, embedded } = inject("testDatabase");
const cleanups: (() => Promise<void>)[] = [];
let ownEmbedded: { database: EmbeddedDatabase; dataDir: string } | undefined;

type MigrationRow = {
  id: string;
  checksum: string;
  migration_name: string;
  logs: string | null;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
};

/**
 * A new, empty database. The embedded server maps every database name onto one PGlite database
 * shared by all test files, so there this file starts its own and empties its public schema.
 */
async function emptyDatabase(): Promise<string> {
  return embedded ? emptiedOwnEmbeddedDatabase() : databaseOnTestServer();
}

async function databaseOnTestServer(): Promise<string> {
  const name = `${prefix}_migrate_${randomBytes(4).toString("hex")}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  cleanups.push(() => adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  return withDatabase(serverUrl, name);
}

async function emptiedOwnEmbeddedDatabase(): Promise<string> {
  if (!ownEmbedded) {
    const dataDir = await mkdtemp(path.join(tmpdir(), "permalink-migrate-"));
    ownEmbedded = { database: await startEmbeddedDatabase(dataDir), dataDir };
  }
  const { url } = ownEmbedded.database;
  await adminQuery(url, "DROP SCHEMA public CASCADE; CREATE SCHEMA public");
  return url;
}

async function query<Row extends pg.QueryResultRow>(databaseUrl: string, sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

const migrationRows = (databaseUrl: string) =>
  query<MigrationRow>(databaseUrl, `SELECT * FROM "_prisma_migrations" ORDER BY migration_name`);

async function tableExists(databaseUrl: string, table: string): Promise<boolean> {
  const [row] = await query<{ exists: boolean }>(databaseUrl, "SELECT to_regclass($1) IS NOT NULL AS exists", [
    `public.${table}`,
  ]);
  return row!.exists;
}

async function projectMigrations(): Promise<{ name: string; checksum: string }[]> {
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const bytes = await readFile(path.join(MIGRATIONS_DIR, name, "migration.sql"));
      return { name, checksum: createHash("sha256").update(bytes).digest("hex") };
    }),
  );
}

/** A migrations folder in the layout Prisma uses: one folder per migration holding migration.sql. */
async function migrationsDir(migrations: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "permalink-migrations-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, "migration_lock.toml"), 'provider = "postgresql"\n');
  for (const [name, sql] of Object.entries(migrations)) {
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

/** The project's migrations, where the one named `…_<suffix>` is among them, and a folder of those before it. */
async function migrationsBefore(suffix: string): Promise<{ migrations: { name: string }[]; at: number; dir: string }> {
  const migrations = await projectMigrations();
  const at = migrations.findIndex((migration) => migration.name.endsWith(`_${suffix}`));
  const before = Object.fromEntries(
    await Promise.all(
      migrations
        .slice(0, at)
        .map(async ({ name }) => [name, await readFile(path.join(MIGRATIONS_DIR, name, "migration.sql"), "utf8")] as const),
    ),
  );
  return { migrations, at, dir: await migrationsDir(before) };
}

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

afterAll(async () => {
  await ownEmbedded?.database.close();
  if (ownEmbedded) await rm(ownEmbedded.dataDir, { recursive: true, force: true });
});

async function tomorrowUtc(databaseUrl: string): Promise<string> {
  const [row] = await query<{ day: string }>(
    databaseUrl,
    "SELECT to_char((date_trunc('day', now(), 'UTC') + interval '1 day') AT TIME ZONE 'UTC', 'YYYYMMDD') AS day",
  );
  return row!.day;
}

describe("migrate()", () => {
  it("applies every migration folder and records each the way prisma migrate deploy does", async () => {
    const databaseUrl = await emptyDatabase();
    const expected = await projectMigrations();
    expect(expected.length).toBeGreaterThan(0);

    const applied = await migrate(databaseUrl);

    expect(applied).toEqual(expected.map((migration) => migration.name));
    const rows = await migrationRows(databaseUrl);
    expect(rows).toEqual(
      expected.map(({ name, checksum }) => ({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        checksum,
        migration_name: name,
        logs: null,
        started_at: expect.any(Date),
        finished_at: expect.any(Date),
        rolled_back_at: null,
        applied_steps_count: 1,
      })),
    );
    for (const row of rows) expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
    expect(await tableExists(databaseUrl, "links")).toBe(true);
  });

  it("creates _prisma_migrations with Prisma's own column types", async () => {
    const databaseUrl = await emptyDatabase();
    await migrate(databaseUrl);

    const columns = await query<{ column_name: string; udt_name: string; is_nullable: string; length: number | null }>(
      databaseUrl,
      `SELECT column_name, udt_name, is_nullable, character_maximum_length AS length
         FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns).toEqual([
      { column_name: "id", udt_name: "varchar", is_nullable: "NO", length: 36 },
      { column_name: "checksum", udt_name: "varchar", is_nullable: "NO", length: 64 },
      { column_name: "finished_at", udt_name: "timestamptz", is_nullable: "YES", length: null },
      { column_name: "migration_name", udt_name: "varchar", is_nullable: "NO", length: 255 },
      { column_name: "logs", udt_name: "text", is_nullable: "YES", length: null },
      { column_name: "rolled_back_at", udt_name: "timestamptz", is_nullable: "YES", length: null },
      { column_name: "started_at", udt_name: "timestamptz", is_nullable: "NO", length: null },
      { column_name: "applied_steps_count", udt_name: "int4", is_nullable: "NO", length: null },
    ]);
  });

  it("applies nothing on a second run", async () => {
    const databaseUrl = await emptyDatabase();
    await migrate(databaseUrl);
    const before = await migrationRows(databaseUrl);

    expect(await migrate(databaseUrl)).toEqual([]);
    expect(await migrationRows(databaseUrl)).toEqual(before);
  });

  // The embedded database is one PGlite session shared by every connection, so no advisory lock can exclude there.
  it.skipIf(embedded)("applies each migration once when two runs start together", async () => {
    const databaseUrl = await emptyDatabase();
    const expected = (await projectMigrations()).map((migration) => migration.name);

    const runs = await Promise.all([migrate(databaseUrl), migrate(databaseUrl)]);

    expect(runs.flat().sort()).toEqual(expected);
    expect((await migrationRows(databaseUrl)).map((row) => row.migration_name)).toEqual(expected);
  });

  it("refuses to run when an applied migration's checksum differs, naming it", async () => {
    const databaseUrl = await emptyDatabase();
    const [first] = await migrate(databaseUrl);
    await query(databaseUrl, `UPDATE "_prisma_migrations" SET checksum = $1 WHERE migration_name = $2`, ["0".repeat(64), first]);

    await expect(migrate(databaseUrl)).rejects.toThrow(new RegExp(`Migration ${first} .*checksum`));
  });

  it("rolls a failing migration back entirely, records no row for it, and applies it once fixed", async () => {
    const databaseUrl = await emptyDatabase();
    const first = "CREATE TABLE first_table (id INTEGER PRIMARY KEY);";
    const second = "CREATE TABLE second_table (id INTEGER);";
    // Fails before any statement of its own completes: the embedded server's change feed
    // queries the session after each completed command, which an aborted transaction refuses.
    const brokenDir = await migrationsDir({
      "0001_first": first,
      "0002_second": `SELECT no_such_column FROM first_table;\n${second}`,
    });

    await expect(migrate(databaseUrl, brokenDir)).rejects.toThrow(/Migration 0002_second failed: .*no_such_column/);

    expect((await migrationRows(databaseUrl)).map((row) => [row.migration_name, row.finished_at !== null])).toEqual([
      ["0001_first", true],
    ]);
    expect(await tableExists(databaseUrl, "first_table")).toBe(true);
    expect(await tableExists(databaseUrl, "second_table")).toBe(false);

    const fixedDir = await migrationsDir({ "0001_first": first, "0002_second": second });
    expect(await migrate(databaseUrl, fixedDir)).toEqual(["0002_second"]);
    expect(await tableExists(databaseUrl, "second_table")).toBe(true);
  });
});

describe("the key recovery migration", () => {
  it("moves a sealed replay copy from its payment to the machine account's unused live key, and drops the payment's column", async () => {
    const databaseUrl = await emptyDatabase();
    const { migrations, at: keyRecovery, dir } = await migrationsBefore("key_recovery");
    await migrate(databaseUrl, dir);
    await query(
      databaseUrl,
      `INSERT INTO workspaces (id, name, kind, payer_did) VALUES ('ws_m', 'machine', 'machine', 'did:pkh:eip155:84532:0xAb');
       INSERT INTO api_keys (id, workspace_id, key_hash, hint) VALUES ('key_old', 'ws_m', 'h1', 'plk_…0001');
       UPDATE api_keys SET revoked_at = now() WHERE id = 'key_old';
       INSERT INTO api_keys (id, workspace_id, key_hash, hint) VALUES ('key_live', 'ws_m', 'h2', 'plk_…0002');
       INSERT INTO links (id, workspace_id, slug, reusable, destination) VALUES ('lnk_1', 'ws_m', 'paid-one', false,
         'https://example.com/');
       INSERT INTO links (id, workspace_id, slug, reusable, destination) VALUES ('lnk_2', 'ws_m', 'paid-two', false,
         'https://example.com/2');
       INSERT INTO payments (payment_key, credential_hash, protocol, payer_did, purchase, status, claimed_at, link_id,
         api_key_sealed, fulfilled_at)
         VALUES ('p1', 'c1', 'mpp', 'did:pkh:eip155:84532:0xAb', 'x', 'fulfilled', now(), 'lnk_1', 'sealed-copy', now()),
                ('p2', 'c2', 'mpp', 'did:pkh:eip155:84532:0xAb', 'y', 'fulfilled', now(), 'lnk_2', NULL, now());`,
    );

    expect(await migrate(databaseUrl)).toEqual([
      migrations[keyRecovery]!.name,
      ...migrations.slice(keyRecovery + 1).map(({ name }) => name),
    ]);

    expect(await query(databaseUrl, "SELECT id, replay_sealed FROM api_keys ORDER BY id")).toEqual([
      { id: "key_live", replay_sealed: "sealed-copy" },
      { id: "key_old", replay_sealed: null },
    ]);
    expect(await query(databaseUrl, "SELECT payment_key, api_key_id FROM payments ORDER BY payment_key")).toEqual([
      { payment_key: "p1", api_key_id: "key_live" },
      { payment_key: "p2", api_key_id: null },
    ]);
    expect(
      await query(
        databaseUrl,
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'payments' AND column_name = 'api_key_sealed'",
      ),
    ).toEqual([]);
  });
  it("adds a UTC month row per day rows' month, then hands the months to the scan writer without changing a count", async () => {
    const databaseUrl = await emptyDatabase();
    const migrations = await projectMigrations();
    const months = migrations.findIndex((migration) => migration.name.endsWith("_scan_rollup_months"));
    const inline = migrations.findIndex((migration) => migration.name.endsWith("_scan_writer_months_inline"));
    const upTo = async (end: number) =>
      migrationsDir(
        Object.fromEntries(
          await Promise.all(
            migrations
              .slice(0, end)
              .map(async ({ name }) => [name, await readFile(path.join(MIGRATIONS_DIR, name, "migration.sql"), "utf8")] as const),
          ),
        ),
      );
    await migrate(databaseUrl, await upTo(months));
    const upsert = `INSERT INTO scan_rollups AS r (workspace_id, grain, dimension, link_id, bucket, value, scans, uniques, bots) VALUES
        ('ws_1', 1440, 0, '', $1, '', $2, 1, 1), ('ws_1', 15, 0, '', $1, '', $2, 1, 1)
      ON CONFLICT (workspace_id, grain, dimension, link_id, bucket, value) DO UPDATE
        SET scans = r.scans + excluded.scans, uniques = r.uniques + excluded.uniques, bots = r.bots + excluded.bots`;
    for (const [day, scans] of [
      ["2026-01-05", 3],
      ["2026-01-31", 4],
      ["2026-02-01", 5],
    ] as const)
      await query(databaseUrl, upsert, [`${day}T00:00:00Z`, scans]);

    expect(await migrate(databaseUrl, await upTo(inline))).toEqual(migrations.slice(months, inline).map(({ name }) => name));
    // While the month triggers were there: a new day in January, and an increment of an existing one in February.
    await query(databaseUrl, upsert, ["2026-01-20T00:00:00Z", 10]);
    await query(databaseUrl, upsert, ["2026-02-01T00:00:00Z", 100]);
    const monthRows = () =>
      query<{ month: string; scans: string; uniques: string; bots: string }>(
        databaseUrl,
        "SELECT to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM') AS month, scans::text, uniques::text, " +
          "bots::text FROM scan_rollups WHERE grain = 0 ORDER BY bucket",
      );
    const expected = [
      { month: "2026-01", scans: "17", uniques: "3", bots: "3" },
      { month: "2026-02", scans: "105", uniques: "2", bots: "2" },
    ];
    expect(await monthRows()).toEqual(expected);

    // The writer adds months itself from then on (lib/analytics/store/fold.ts): the triggers are gone, the months kept.
    expect(await migrate(databaseUrl)).toEqual(migrations.slice(inline).map(({ name }) => name));
    expect(await monthRows()).toEqual(expected);
    expect(
      await query(databaseUrl, "SELECT tgname FROM pg_trigger WHERE tgrelid = 'scan_rollups'::regclass AND NOT tgisinternal"),
    ).toEqual([]);
  });

  it("partitions a populated scan_events by day without losing, changing or adding a row", async () => {
    const databaseUrl = await emptyDatabase();
    const { migrations, at: partitioned, dir } = await migrationsBefore("scan_events_partitioned");
    await migrate(databaseUrl, dir);
    // Rows across seven months up to now, some tomorrow and later (they must leave the old table for
    // the partitioned one), folded runs of several scans, both links.
    await query(
      databaseUrl,
      `INSERT INTO workspaces (id, name, kind) VALUES ('ws_p', 'partitioned', 'personal');
       INSERT INTO links (id, workspace_id, slug, reusable, destination) VALUES
         ('lnk_a', 'ws_p', 'a', false, 'https://example.com/a'), ('lnk_b', 'ws_p', 'b', false, 'https://example.com/b');
       INSERT INTO scan_events (link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, bot, link_unique, scans)
       SELECT CASE WHEN g % 3 = 0 THEN 'lnk_b' ELSE 'lnk_a' END, 's.example', now() - interval '210 days' + g * interval '53 minutes',
         'Mozilla/5.0', CASE WHEN g % 4 = 0 THEN 'news.example' END, CASE WHEN g % 2 = 0 THEN 'AU' END, g % 5 = 0, 'mobile',
         g % 7 = 0, g % 2 = 1, 1 + g % 4
       FROM generate_series(1, 6000) g;`,
    );
    const snapshot = () =>
      query<{ rows: string; scans: string; ids: string; max_id: string; months: string; digest: string }>(
        databaseUrl,
        `SELECT count(*)::text AS rows, sum(scans)::text AS scans, sum(id)::text AS ids, max(id)::text AS max_id,
           (SELECT string_agg(month || ':' || n, ',' ORDER BY month) FROM (
              SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*) AS n FROM scan_events GROUP BY 1) m) AS months,
           md5(string_agg(row_to_json(e)::text, '' ORDER BY id)) AS digest
         FROM (SELECT id, link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot,
                 link_unique, workspace_unique, scans FROM scan_events) e`,
      );
    const seeded = await snapshot();
    expect(Number(seeded[0]!.rows)).toBe(6000);
    expect(seeded[0]!.months.split(",").length).toBeGreaterThanOrEqual(7);
    const [{ later } = { later: 0 }] = await query<{ later: number }>(
      databaseUrl,
      "SELECT count(*)::int AS later FROM scan_events WHERE occurred_at >= date_trunc('day', now(), 'UTC') + interval '1 day'",
    );
    expect(later).toBeGreaterThan(0);

    expect(await migrate(databaseUrl)).toEqual(migrations.slice(partitioned).map(({ name }) => name));

    expect(await snapshot()).toEqual(seeded);
    const placed = await query<{ partition: string; rows: number }>(
      databaseUrl,
      "SELECT tableoid::regclass::text AS partition, count(*)::int AS rows FROM scan_events GROUP BY 1 ORDER BY 1",
    );
    expect(placed).toEqual([
      { partition: "scan_events_before_" + (await tomorrowUtc(databaseUrl)), rows: 6000 - later },
      { partition: "scan_events_default", rows: later },
    ]);
    expect(await query(databaseUrl, "SELECT relkind::text AS kind FROM pg_class WHERE relname = 'scan_events'")).toEqual([
      { kind: "p" },
    ]);
    // New rows continue the same sequence.
    const [{ id } = { id: "" }] = await query<{ id: string }>(
      databaseUrl,
      "INSERT INTO scan_events (link_id, host, occurred_at, via_qr) VALUES ('lnk_a', 's.example', now(), false) RETURNING id::text",
    );
    expect(BigInt(id)).toBe(BigInt(seeded[0]!.max_id) + 1n);
  });

  it("carries the link visitor rows kept so far into the one visitor row a scan, leaving the workspace's behind", async () => {
    const databaseUrl = await emptyDatabase();
    const { migrations, at: visitors, dir } = await migrationsBefore("scan_link_visitors");
    await migrate(databaseUrl, dir);
    await query(
      databaseUrl,
      `INSERT INTO workspaces (id, name, kind) VALUES ('ws_v', 'visitors', 'personal');
       INSERT INTO links (id, workspace_id, slug, reusable, destination) VALUES
         ('lnk_a', 'ws_v', 'a', false, 'https://example.com/a'), ('lnk_b', 'ws_v', 'b', false, 'https://example.com/b');
       INSERT INTO scan_visitors (day, scope_id, visitor) VALUES
         ('2026-12-02', 'lnk_a', '\\x01'), ('2026-12-02', 'ws_v', '\\x01'), ('2026-12-03', 'lnk_a', '\\x01'),
         ('2026-12-03', 'lnk_b', '\\x01'), ('2026-12-03', 'ws_v', '\\x01'), ('2026-12-03', 'lnk_b', '\\x02'),
         ('2026-12-03', 'ws_v', '\\x02');`,
    );

    expect(await migrate(databaseUrl)).toEqual(migrations.slice(visitors).map(({ name }) => name));

    expect(
      await query(
        databaseUrl,
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, workspace_id, encode(visitor, 'hex') AS visitor, link_id
         FROM scan_link_visitors ORDER BY 1, 3, 4`,
      ),
    ).toEqual([
      { day: "2026-12-02", workspace_id: "ws_v", visitor: "01", link_id: "lnk_a" },
      { day: "2026-12-03", workspace_id: "ws_v", visitor: "01", link_id: "lnk_a" },
      { day: "2026-12-03", workspace_id: "ws_v", visitor: "01", link_id: "lnk_b" },
      { day: "2026-12-03", workspace_id: "ws_v", visitor: "02", link_id: "lnk_b" },
    ]);
    // Kept for a release from before, which still writes it during a rolling restart.
    expect(await query(databaseUrl, "SELECT count(*)::int AS rows FROM scan_visitors")).toEqual([{ rows: 7 }]);
  });
});
