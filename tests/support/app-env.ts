/** What an app a test starts shares with the test: its database, pool size, sign-in secret and DNS resolver. */
export function testAppEnv(): Record<string, string | undefined> {
  const { DATABASE_URL, DATABASE_POOL_SIZE, AUTH_SECRET, DNS_RESOLVER } = process.env;
  return { DATABASE_URL, DATABASE_POOL_SIZE, AUTH_SECRET, DNS_RESOLVER };
}
