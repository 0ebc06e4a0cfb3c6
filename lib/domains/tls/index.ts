import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import { createCaddyProvider } from "./caddy";
import type { TlsProvider } from "./provider";
import { createVercelProvider } from "./vercel";

const processProvider = processSingleton("tlsProvider", (): TlsProvider => {
  const settings = config();
  if (settings.TLS_PROVIDER === "caddy") return createCaddyProvider();
  return createVercelProvider({
    token: settings.VERCEL_TOKEN!,
    projectId: settings.VERCEL_PROJECT_ID!,
    teamId: settings.VERCEL_TEAM_ID,
    apiBase: settings.VERCEL_API_BASE,
  });
});

/** The configured TLS provider (TLS_PROVIDER: caddy, or vercel with VERCEL_TOKEN and VERCEL_PROJECT_ID). */
export function tlsProvider(): TlsProvider {
  return processProvider.get();
}

export function resetTlsProvider(): void {
  processProvider.reset();
}

export type { TlsProvider, TlsState } from "./provider";
