import type { DnsRecord } from "../records";
import type { CertStatus } from "../status";

/** The certificate's state as the provider sees it, records the provider itself asks for, and what is wrong in words. */
export type TlsState = { certStatus: CertStatus; records: DnsRecord[]; problems: string[] };

/**
 * How customer domains get certificates, chosen by TLS_PROVIDER. A provider learns about a
 * hostname only once we verified it (a claim nobody proved never reaches it), reports the
 * certificate's state on every check, and forgets the hostname when the domain is deleted.
 */
export interface TlsProvider {
  readonly name: "caddy" | "vercel";
  inspect(hostname: string, verified: boolean): Promise<TlsState>;
  detach(hostname: string): Promise<void>;
}
