import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { migrate } from "@/lib/db/migrate";
import { ensureFreshBuild } from "@/scripts/app-process";
import { adminQuery, testServerUrl, withDatabase } from "./database";
import { startTestDnsServer } from "./dns-server";

declare module "vitest" {
  export interface ProvidedContext {
    testDatabase: { serverUrl: string; template: string; prefix: string; embedded: boolean };
    dnsResolver: string;
  }
}

/**
 * One migrated template database per run (each test file gets its own copy in per-file-setup)
 * and one DNS server that every destination lookup in the tests goes to. The server suites
 * need a current production build; it is made here, once, so no two files build at once.
 */
export default async function setup(project: TestProject) {
  // TEST_SKIP_BUILD=1 while iterating on suites that start no server (tests/server need the build).
  if (!process.env.TEST_SKIP_BUILD) await ensureFreshBuild();
  const server = await testServerUrl();
  const prefix = `plk_test_${randomBytes(4).toString("hex")}`;
  const template = `${prefix}_template`;
  await adminQuery(server.url, `CREATE DATABASE "${template}"`);
  await migrate(withDatabase(server.url, template));
  project.provide("testDatabase", { serverUrl: server.url, template, prefix, embedded: Boolean(server.embedded) });
  const dns = await startTestDnsServer();
  project.provide("dnsResolver", dns.resolver);

  return async () => {
    await dropRunDatabases(server.url, prefix);
    await server.embedded?.close();
    await dns.close();
  };
}

async function dropRunDatabases(serverUrl: string, prefix: string): Promise<void> {
  const pg = await import("pg");
  const client = new pg.default.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [
      `${prefix}%`,
    ]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
