import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";

export type TlsServer = {
  port: number;
  /** Serves a new self-signed certificate for `hostname` (SNI), valid for `days` from now; its notAfter. */
  issue(hostname: string, days: number): Date;
  /** How many handshakes named the hostname. */
  handshakesFor(hostname: string): number;
  close(): Promise<void>;
};

/**
 * A TLS server on 127.0.0.1 that presents, for each hostname asked by SNI, a short-lived
 * self-signed certificate made for the test with the machine's openssl (node:crypto makes keys,
 * not certificates).
 */
export async function startTlsServer(): Promise<TlsServer> {
  const contexts = new Map<string, tls.SecureContext>();
  const handshakes = new Map<string, number>();
  const fallback = makeCertificate("fallback.test", 365);
  const server = tls.createServer(
    {
      key: fallback.key,
      cert: fallback.cert,
      SNICallback: (servername, callback) => {
        const name = servername.toLowerCase();
        handshakes.set(name, (handshakes.get(name) ?? 0) + 1);
        callback(null, contexts.get(name));
      },
    },
    (socket) => socket.end(),
  );
  server.on("tlsClientError", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    issue(hostname, days) {
      const made = makeCertificate(hostname, days);
      contexts.set(hostname.toLowerCase(), tls.createSecureContext({ key: made.key, cert: made.cert }));
      return made.notAfter;
    },
    handshakesFor: (hostname) => handshakes.get(hostname.toLowerCase()) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function makeCertificate(hostname: string, days: number): { key: string; cert: string; notAfter: Date } {
  const dir = mkdtempSync(join(tmpdir(), "permalink-cert-"));
  try {
    const keyFile = join(dir, "key.pem");
    const certFile = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        keyFile,
        "-out",
        certFile,
        "-days",
        String(days),
        "-subj",
        `/CN=${hostname}`,
        "-addext",
        `subjectAltName=DNS:${hostname}`,
      ],
      { stdio: "ignore" },
    );
    const cert = readFileSync(certFile, "utf8");
    return { key: readFileSync(keyFile, "utf8"), cert, notAfter: new Date(new X509Certificate(cert).validTo) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
