import path from "node:path";

export type EmbeddedDatabase = { url: string; close(): Promise<void> };

/**
 * The embedded server multiplexes every client connection onto one PGlite instance, and
 * concurrent connections reset each other after a failed statement; one connection is safe.
 */
export const EMBEDDED_POOL_SIZE = 1;

/**
 * Starts Prisma's local PostgreSQL (PGlite) in this process, persisted under `dataDir`.
 * For development and the zero-configuration default only; production sets DATABASE_URL.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  // @prisma/dev keeps its data under XDG_DATA_HOME; point it at the project's data folder.
  process.env.XDG_DATA_HOME = path.resolve(dataDir, "postgres");
  const { startPrismaDevServer } = await import("@prisma/dev");
  const server = await startPrismaDevServer({
    name: "permalink",
    persistenceMode: "stateful",
    port: 0,
    databasePort: 0,
    shadowDatabasePort: 0,
  });
  return { url: server.database.connectionString, close: () => server.close() };
}
