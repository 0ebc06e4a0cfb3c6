/**
 * NATS_URL as the NATS clients read it: `nats://` or `tls://` (TLS required) URLs, comma-separated,
 * each optionally with credentials, `user:password@` (percent-encoded) or a token alone
 * (`token@`). nats.js itself drops a URL's credentials, so they are taken out here and passed as
 * its options; every URL that carries some must carry the same.
 */
export type NatsServers = {
  /** host:port of each server, without scheme or credentials. */
  servers: string[];
  /** A tls:// URL was given: the connection must be encrypted. */
  tls: boolean;
  credentials: { user: string; pass: string } | { token: string } | null;
};

export class NatsUrlError extends Error {}

export function natsServers(value: string): NatsServers {
  const urls = value.split(",").map((entry) => parse(entry.trim()));
  const given = [...new Set(urls.map((url) => url.credentials).filter((entry) => entry !== null))];
  if (given.length > 1) throw new NatsUrlError("must give the same credentials in every URL that has some");
  const credentials = given[0] ?? null;
  return {
    servers: urls.map((url) => url.server),
    tls: urls.some((url) => url.tls),
    credentials: credentials === null ? null : JSON.parse(credentials),
  };
}

function parse(entry: string): { server: string; tls: boolean; credentials: string | null } {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw new NatsUrlError("must be nats:// or tls:// URLs, comma-separated");
  }
  if (!["nats:", "tls:"].includes(url.protocol) || !url.host || (url.pathname !== "" && url.pathname !== "/"))
    throw new NatsUrlError("must be nats:// or tls:// URLs (host and port only), comma-separated");
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  const credentials = !user ? null : url.password ? { user, pass } : { token: user };
  return { server: url.host, tls: url.protocol === "tls:", credentials: credentials && JSON.stringify(credentials) };
}
