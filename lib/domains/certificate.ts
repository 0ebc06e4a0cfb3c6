import { config } from "@/lib/config";
import { withDeadline } from "@/lib/deadline";
import { INTERNAL_ADDRESS_CODE, outboundLookup } from "@/lib/safety/outbound";
import tls from "node:tls";

/** The handshake, connection to certificate, at most. */
const HANDSHAKE_TIMEOUT_MS = 8_000;
const INTERNAL_HOST = "The domain's address is internal or private, so its certificate is not read.";

export type CertificateExpiry = { expiresAt: Date | null; problem: string | null };

/**
 * When the certificate visitors of the hostname get lapses: a TLS handshake to it (SNI the
 * hostname, port CERTIFICATE_CHECK_PORT, 443 unless a test says otherwise), reading the leaf's
 * notAfter. Neither TLS provider's API we use reports an expiry (Caddy issues on demand; Vercel's
 * project domains answer only whether it is configured), and the handshake reads what visitors
 * actually get. The connection goes through the outbound rules' pinned lookup (public addresses
 * only, or WEBHOOK_PRIVATE_NETWORKS), and nothing is sent after the handshake. The certificate is
 * read whether or not it is trusted: its date is what matters here. Never throws.
 */
export async function readCertificateExpiry(hostname: string): Promise<CertificateExpiry> {
  let socket: tls.TLSSocket | undefined;
  try {
    const validTo = await withDeadline(
      new Promise<string>((resolve, reject) => {
        socket = tls.connect({
          host: hostname,
          port: config().CERTIFICATE_CHECK_PORT,
          servername: hostname,
          lookup: outboundLookup(INTERNAL_HOST),
          rejectUnauthorized: false,
          ALPNProtocols: ["http/1.1"],
        });
        socket.once("secureConnect", () => resolve(socket!.getPeerCertificate().valid_to ?? ""));
        socket.once("error", reject);
      }),
      HANDSHAKE_TIMEOUT_MS,
    );
    const at = Date.parse(validTo);
    if (!Number.isFinite(at)) return { expiresAt: null, problem: `The certificate of ${hostname} carries no expiry date.` };
    return { expiresAt: new Date(at), problem: null };
  } catch (error) {
    return { expiresAt: null, problem: handshakeProblem(hostname, error) };
  } finally {
    socket?.destroy();
  }
}

function handshakeProblem(hostname: string, error: unknown): string {
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  if (code === INTERNAL_ADDRESS_CODE) return INTERNAL_HOST;
  if (error instanceof Error && error.message.startsWith("no answer within"))
    return `${hostname} did not complete a TLS handshake within ${HANDSHAKE_TIMEOUT_MS / 1000} seconds.`;
  return `The certificate of ${hostname} could not be read (${code || (error instanceof Error ? error.message : "no answer")}).`;
}
