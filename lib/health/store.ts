import { db } from "@/lib/db/client";

/** The cheapest question the database can answer: proves a connection and a working server. */
export async function pingDatabase(): Promise<void> {
  await db().$queryRaw`SELECT 1`;
}
