import { createHash, createPublicKey, type KeyObject } from "node:crypto";

/**
 * The escrow file, version 1 (docs/escrow.md): JSON Lines, one header line, one line a code, and
 * a signature line. Pure and free of the service's configuration: the verifier anyone can run
 * (scripts/verify-escrow.ts) reads the same definitions the service writes with.
 */
export const ESCROW_FORMAT = "permalink-escrow";
export const ESCROW_VERSION = 1;

/** Whose codes a snapshot holds: a workspace's, one custom domain's, or every code of the service. */
export type EscrowScope = { kind: "workspace"; id: string } | { kind: "domain"; id: string; host: string } | { kind: "service" };

export type EscrowKeyRef = { id: string; algorithm: "Ed25519"; public_key: string };

export type EscrowHeader = {
  format: typeof ESCROW_FORMAT;
  version: typeof ESCROW_VERSION;
  /** The service's origin (BASE_URL). */
  service: string;
  /** The default short host's origin: a code whose host is its host lives there. */
  short_base_url: string;
  scope: EscrowScope;
  snapshot_at: string;
  /** The key the signature line is made with, pinned here (the header is signed with the rest). */
  key: EscrowKeyRef;
  /** Where the service lists its current and past keys. */
  keys_url: string;
  /**
   * The scope's custom domains that send a visit of their root, or of a code they do not have,
   * somewhere of their owners' choosing (absent in files written before these were added).
   */
  domains?: EscrowDomain[];
};

/** A custom domain's own destinations: its root's, and a code it does not have's (after the case-insensitive lookup). */
export type EscrowDomain = { host: string; root_destination: string | null; not_found_destination: string | null };

export type EscrowStatus = "active" | "quarantine" | "abuse";

/** One issued code, as it stood at the snapshot's time. */
export type EscrowCode = {
  host: string;
  slug: string;
  /**
   * Where the code sends a visitor no rule matches, at the snapshot's time (a scheduled change
   * already due applied). Null only for a password-protected code in a published (public) file:
   * its destinations are withheld (rules, schedule and scan_limit empty too), since the password
   * guards them.
   */
  destination: string | null;
  rules: { when: Record<string, string[]>; destination: string }[];
  /** Scheduled changes still to come, in time order. */
  schedule: { at: string; destination: string }[];
  scan_limit: { after: number; destination: string } | null;
  status: EscrowStatus;
  password_protected: boolean;
  created_at: string;
  archived_at: string | null;
};

export type EscrowTrailer = { end: true; codes: number; sha256: string; signature: string };

/** What the signature covers: the format, the SHA-256 of every byte before the signature line, and the number of codes. */
export function signedStatement(sha256: string, codes: number): Buffer {
  return Buffer.from(`${ESCROW_FORMAT}/${ESCROW_VERSION}\n${sha256}\n${codes}\n`, "utf8");
}

/** A public key's id: the first 16 bytes of SHA-256 of its raw 32 bytes, base64url. */
export function keyId(rawPublicKey: Buffer): string {
  return createHash("sha256").update(rawPublicKey).digest().subarray(0, 16).toString("base64url");
}

/** The SubjectPublicKeyInfo DER of an Ed25519 key holds its raw 32 bytes after these 12 (RFC 8410). */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export function rawPublicKey(key: KeyObject): Buffer {
  const der = createPublicKey(key).export({ format: "der", type: "spki" });
  return Buffer.from(der.subarray(ED25519_SPKI_PREFIX.length));
}

export function publicKeyFromRaw(raw: Buffer): KeyObject {
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: "der", type: "spki" });
}

/** The well-known document (/.well-known/permalink-escrow.json): every key snapshots were ever signed with. */
export type EscrowKeysDocument = {
  format: typeof ESCROW_FORMAT;
  version: typeof ESCROW_VERSION;
  service: string;
  keys: { id: string; algorithm: "Ed25519"; public_key: string; created_at: string; retired_at: string | null }[];
};
