import { register } from "@/instrumentation";
import { resetConfig } from "@/lib/config";
import { disconnectDb } from "@/lib/db/client";
import { EMBEDDED_POOL_SIZE } from "@/server/embedded-database";
import { randomBytes } from "node:crypto";
import { afterAll, inject } from "vitest";
import { cloneDatabase } from "./database";

const { serverUrl, template, prefix, embedded } = inject("testDatabase");

process.env.DATABASE_URL = await cloneDatabase(serverUrl, template, `${prefix}_${randomBytes(6).toString("hex")}`);
if (embedded) process.env.DATABASE_POOL_SIZE = String(EMBEDDED_POOL_SIZE);
process.env.DNS_RESOLVER = inject("dnsResolver");
process.env.AUTH_SECRET ??= randomBytes(32).toString("base64url");
process.env.BASE_URL = "http://app.test.example";
process.env.SHORT_BASE_URL = "http://s.test.example";
process.env.WRITE_RATE_LIMIT_PER_MINUTE ??= "10000";
// In-process suites play one proxy in front of the app: the X-Forwarded-For they send is what that proxy saw.
process.env.TRUSTED_PROXY_HOPS ??= "1";
// In-process suites log every request; only errors are worth reading beside the test output.
process.env.LOG_LEVEL ??= "error";
delete process.env.REDIS_URL;
delete process.env.UPSTASH_REDIS_REST_URL;
resetConfig();
// As Next does when a server starts: next-auth's origin.
register();

afterAll(async () => {
  await disconnectDb();
});
