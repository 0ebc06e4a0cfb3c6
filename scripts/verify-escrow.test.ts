import { keyId, rawPublicKey, signedStatement, type EscrowCode, type EscrowKeysDocument } from "@/lib/escrow/format";
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../tests/support/command";
import { serveEscrow } from "../tests/support/verify-escrow";

/** The verifier as a person runs it, on files signed here (no service: the verifier needs none). */
const CLI_TIMEOUT_MS = 60_000;
const PORT = 48_213;
const ATTACKER_KEYS = "https://attacker.example/.well-known/permalink-escrow.json";

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "verify-escrow-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function code(host: string, slug: string, fields: Partial<EscrowCode> = {}): EscrowCode {
  return {
    host,
    slug,
    destination: `https://example.com/${encodeURIComponent(slug)}`,
    rules: [],
    schedule: [],
    scan_limit: null,
    status: "active",
    password_protected: false,
    created_at: "2026-01-01T00:00:00.000Z",
    archived_at: null,
    ...fields,
  };
}

/** A file signed with a fresh key, as the service writes one, and the keys document that lists the key. */
async function signedFile(codes: EscrowCode[], header: Record<string, unknown> = {}): Promise<{ file: string; keys: string }> {
  const { privateKey } = generateKeyPairSync("ed25519");
  const raw = rawPublicKey(privateKey);
  const key = { id: keyId(raw), algorithm: "Ed25519" as const, public_key: raw.toString("base64url") };
  const body = [
    {
      format: "permalink-escrow",
      version: 1,
      service: "https://permalink.example",
      short_base_url: "https://s.permalink.example",
      scope: { kind: "service" },
      snapshot_at: new Date().toISOString(),
      key,
      keys_url: ATTACKER_KEYS,
      ...header,
    },
    ...codes,
  ]
    .map((value) => `${JSON.stringify(value)}\n`)
    .join("");
  const sha256 = createHash("sha256").update(body).digest("hex");
  const signature = sign(null, signedStatement(sha256, codes.length), privateKey).toString("base64url");
  const name = `${key.id}.jsonl`;
  const file = join(directory, name);
  await writeFile(file, `${body}${JSON.stringify({ end: true, codes: codes.length, sha256, signature })}\n`);
  const document: EscrowKeysDocument = {
    format: "permalink-escrow",
    version: 1,
    service: "https://permalink.example",
    keys: [{ ...key, created_at: "2026-01-01T00:00:00.000Z", retired_at: null }],
  };
  const keys = join(directory, `${key.id}.keys.json`);
  await writeFile(keys, JSON.stringify(document));
  return { file, keys };
}

function verifier(args: string[]) {
  return runCommand("npx", ["tsx", "scripts/verify-escrow.ts", ...args], { ...process.env, DATABASE_URL: "" });
}

/** A GET with the Host header a visitor's browser sends (fetch may not set it). */
function get(url: string, path: string, host: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const sent = request({ host: target.hostname, port: target.port, path, method: "GET", headers: { host } }, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode!, location: response.headers.location }));
    });
    sent.on("error", reject);
    sent.end();
  });
}

describe("verify-escrow, run without the service", () => {
  it(
    "calls a file checked only against its own key UNTRUSTED, exits 3, names no address of the file's, serves nothing",
    async () => {
      const { file } = await signedFile([code("go.example", "menu")], { service: "https://attacker.example" });
      for (const args of [[file], [file, "--serve", "--port", String(PORT)]]) {
        const run = await verifier(args);
        expect(run.exitCode).toBe(3);
        expect(run.stdout).toBe("");
        expect(run.stderr).toMatch(
          /^UNTRUSTED: the file is whole \(1 codes, each once\), but its signature was checked only against the key inside the file/,
        );
        expect(run.stderr).toContain("/.well-known/permalink-escrow.json at the address you know the service by");
        expect(run.stderr).toContain("Nothing is served from an untrusted file.");
        expect(run.stderr).not.toContain("attacker.example");
        expect(run.stderr).not.toContain("Serving");
      }
    },
    CLI_TIMEOUT_MS * 2,
  );

  it(
    "with --keys, serves several-segment, non-ASCII, percent-encoded and wrong-case codes as the live doors read them, and a domain's root and not-found destinations",
    async () => {
      const { file, keys } = await signedFile(
        [
          code("go.example", "menu"),
          code("go.example", "2024/spring"),
          code("go.example", "café"),
          code("go.example", "staff", { destination: null, password_protected: true }),
          code("s.permalink.example", "Kx7mQ2v"),
        ],
        {
          domains: [
            {
              host: "go.example",
              root_destination: "https://example.com/home",
              not_found_destination: "https://example.com/lost",
            },
          ],
        },
      );
      const checked = await verifier([file, "--keys", keys]);
      expect(checked.stderr).toBe("");
      expect(checked.exitCode).toBe(0);
      expect(checked.stdout).toMatch(
        /^Verified: 5 codes of the whole service at https:\/\/permalink\.example, snapshot of \S+, each once, signed by key \S+, one of the keys in \S+\.\n$/,
      );

      const { url, stop } = await serveEscrow([file, "--keys", keys, "--port", String(PORT)], CLI_TIMEOUT_MS);
      try {
        const answers = async (path: string, host = "go.example") => get(url, path, host);
        expect(await answers("/menu")).toEqual({ status: 302, location: "https://example.com/menu" });
        expect(await answers("/MENU")).toEqual({ status: 302, location: "https://example.com/menu" });
        expect(await answers("/2024/spring?utm_source=flyer")).toEqual({
          status: 302,
          location: "https://example.com/2024%2Fspring?utm_source=flyer",
        });
        expect(await answers("/2024/SPRING")).toEqual({ status: 302, location: "https://example.com/2024%2Fspring" });
        expect(await answers("/caf%C3%A9")).toEqual({ status: 302, location: "https://example.com/caf%C3%A9" });
        // Decomposed (e + combining acute), as some keyboards send it: one stored form (NFC), as the doors look it up.
        expect(await answers("/cafe%CC%81")).toEqual({ status: 302, location: "https://example.com/caf%C3%A9" });
        expect(await answers("/CAF%C3%89")).toEqual({ status: 302, location: "https://example.com/caf%C3%A9" });
        expect(await answers("/staff")).toEqual({ status: 401, location: undefined });
        expect(await answers("/")).toEqual({ status: 302, location: "https://example.com/home" });
        expect(await answers("/?ref=card")).toEqual({ status: 302, location: "https://example.com/home?ref=card" });
        expect(await answers("/nothing-here")).toEqual({ status: 302, location: "https://example.com/lost" });
        expect(await answers("/kx7mq2v", "s.permalink.example")).toEqual({
          status: 302,
          location: "https://example.com/Kx7mQ2v",
        });
        expect(await answers("/nothing-here", "s.permalink.example")).toEqual({ status: 404, location: undefined });
        expect(await answers("/", "s.permalink.example")).toEqual({ status: 404, location: undefined });
      } finally {
        stop();
      }
    },
    CLI_TIMEOUT_MS * 2,
  );
});
