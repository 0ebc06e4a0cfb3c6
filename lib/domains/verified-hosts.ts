import { db } from "@/lib/db/client";
import { processSingleton } from "@/lib/process-singleton";

const REFRESH_MS = 60_000;

type VerifiedHosts = { hosts: Set<string>; loadedAt: number; loading: Promise<void> | null };
const processHosts = processSingleton<VerifiedHosts>("verifiedHosts", () => ({ hosts: new Set(), loadedAt: 0, loading: null }));

function state(): VerifiedHosts {
  return processHosts.get();
}

async function load(current: VerifiedHosts): Promise<void> {
  const rows = await db().domain.findMany({ where: { verifiedAt: { not: null } }, select: { hostname: true } });
  current.hosts = new Set(rows.map((row) => row.hostname));
  current.loadedAt = Date.now();
}

/**
 * Whether a request host is a verified custom domain. The set is cached and refreshed in the
 * background; until the first load completes the caller waits, and a failed refresh keeps the
 * last known set.
 */
export async function isVerifiedCustomDomain(hostname: string): Promise<boolean> {
  const current = state();
  if (Date.now() - current.loadedAt > REFRESH_MS && !current.loading) {
    current.loading = load(current)
      .catch(() => undefined)
      .finally(() => {
        current.loading = null;
      });
  }
  if (current.loadedAt === 0 && current.loading) await current.loading;
  return current.hosts.has(hostname);
}

/** Forget the cached set (a domain was verified or removed). */
export function forgetVerifiedHosts(): void {
  state().loadedAt = 0;
}
