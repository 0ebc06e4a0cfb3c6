import { startEmbeddedDatabase, type EmbeddedDatabase } from "@/server/embedded-database";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

/** The server tests run against: TEST_DATABASE_URL, else DATABASE_URL, else an embedded one. */
export async function testServerUrl(): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  const configured = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (configured) return { url: configured };
  const embedded = await startEmbeddedDatabase(await mkdtemp(path.join(tmpdir(), "permalink-test-")));
  return { url: embedded.url, embedded };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Copies the migrated template into a fresh database (retrying while another copy holds the template). */
export async function cloneDatabase(serverUrl: string, template: string, name: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      return withDatabase(serverUrl, name);
    } catch (error) {
      if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
}
