import type { TlsProvider } from "./provider";

/**
 * Self-hosted behind Caddy with on-demand TLS: Caddy asks GET /api/domains/tls-ask?domain=<host>
 * during the first handshake for a name and obtains the certificate when we answer 200, which we
 * do for verified domains only. Nothing to register or remove; the state is "on_demand" once verified.
 */
export function createCaddyProvider(): TlsProvider {
  return {
    name: "caddy",
    inspect: async (_hostname, verified) => ({ certStatus: verified ? "on_demand" : "pending", records: [], problems: [] }),
    detach: async () => undefined,
  };
}
