/** What a fault test (or `npm run chaos`) starts `npm start` with: the database, the suite's DNS and the test hosts. */
export function frontAppEnv(
  database: string,
  dnsResolver: string | undefined,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    DATABASE_URL: database,
    DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE,
    AUTH_SECRET: process.env.AUTH_SECRET,
    DNS_RESOLVER: dnsResolver,
    SHORT_BASE_URL: "http://s.test.example",
    BASE_URL: "http://app.test.example",
    RECHECK_INTERVAL_SECONDS: "0",
    ...extra,
  };
}

/** Whether the process still runs (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
