import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { resetTlsProvider } from "@/lib/domains/tls";
import { afterAll, beforeAll } from "vitest";
import { TEST_ZONE } from "./dns-server";
import { type FakeDnsServer, startFakeDnsServer } from "./fake-dns-server";

/**
 * What a suite of domain checks runs in, set up before its tests and undone after them: a DNS
 * server of its own whose records the tests set (our zone answering with the service's address),
 * CRON_SECRET for the check job's route, and the clock reading `now()`.
 */
export function domainCheckWorld(cronSecret: string, now: () => number): { readonly dns: FakeDnsServer } {
  const world = {} as { dns: FakeDnsServer };
  beforeAll(async () => {
    world.dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
    process.env.DNS_RESOLVER = world.dns.resolver;
    process.env.CRON_SECRET = cronSecret;
    resetConfig();
    resetTlsProvider();
    setClock({ now });
  });
  afterAll(async () => {
    setClock(undefined);
    delete process.env.CRON_SECRET;
    resetConfig();
    await world.dns.close();
  });
  return world;
}
