import { migrate } from "@/lib/db/migrate";
import { ensureFreshBuild } from "@/server/app-process";
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { adminQuery, testServerUrl, withDatabase } from "./database";
import { startTestDnsServer } from "./dns-server";

declare module "vitest" {
  export interface ProvidedContext {
    testDatabase: { serverUrl: string; template: string; prefix: string; embedded: boolean };
    dnsResolver: string;
  }
}

/** The kinds of suite (vitest.config.ts) that start the built app. */
const KINDS_THAT_START_THE_APP = new Set(["server", "cluster"]);

type Run = {
  server: Awaited<ReturnType<typeof testServerUrl>>;
  prefix: string;
  template: string;
  dns: Awaited<ReturnType<typeof startTestDnsServer>>;
  projects: number;
};

/** Every kind of suite of one `vitest run` shares one run: they are set up in one process, one after another. */
const RUN = Symbol.for("permalink.test-run");
const holder = globalThis as { [RUN]?: Promise<Run> };

async function startRun(): Promise<Run> {
  const server = await testServerUrl();
  const prefix = `plk_test_${randomBytes(4).toString("hex")}`;
  const template = `${prefix}_template`;
  await adminQuery(server.url, `CREATE DATABASE "${template}"`);
  await migrate(withDatabase(server.url, template));
  return { server, prefix, template, dns: await startTestDnsServer(), projects: 0 };
}

/**
 * One migrated template database per run (each test file gets its own copy in per-file-setup)
 * and one DNS server that every destination lookup in the tests goes to, shared by the kinds of
 * suite (vitest projects) of the run. The server and cluster suites need a current production
 * build; it is made here, once, before any of their files runs (vitest sets the projects up one
 * after another, so the second finds it fresh).
 */
export default async function setup(project: TestProject) {
  // TEST_SKIP_BUILD=1 while iterating on server suites with a build already made.
  if (KINDS_THAT_START_THE_APP.has(project.name) && !process.env.TEST_SKIP_BUILD) await ensureFreshBuild();
  const run = await (holder[RUN] ??= startRun());
  run.projects++;
  const { server, template, prefix, dns } = run;
  project.provide("testDatabase", { serverUrl: server.url, template, prefix, embedded: Boolean(server.embedded) });
  project.provide("dnsResolver", dns.resolver);

  return async () => {
    if (--run.projects > 0) return;
    delete holder[RUN];
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
