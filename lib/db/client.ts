import { PrismaPg } from "@prisma/adapter-pg";
import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import { type Prisma, PrismaClient } from "./generated/client";

export type Db = InstanceType<typeof PrismaClient>;

/** The process client or an interactive transaction's: what data access that may run inside a transaction takes. */
export type DbClient = Prisma.TransactionClient;

const processDb = processSingleton("db", () => createDb(databaseUrl(), config().DATABASE_POOL_SIZE));

/** The process's one Prisma client (shared by hot reloads and bundles). */
export function db(): Db {
  return processDb.get();
}

export function createDb(connectionString: string, poolSize: number): Db {
  // A bounded connect so a hung database fails fast instead of stacking requests.
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max: poolSize, connectionTimeoutMillis: 5000 }) });
}

export async function disconnectDb(): Promise<void> {
  await processDb.reset()?.$disconnect();
}

function databaseUrl(): string {
  const url = config().DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start the service with `npm start`, which starts the embedded database.");
  return url;
}
