import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import { sealUnderAuthSecret, unsealUnderAuthSecret } from "@/lib/webhooks/secret";
import { createPrivateKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { ESCROW_FORMAT, ESCROW_VERSION, type EscrowKeysDocument, keyId, rawPublicKey } from "./format";
import * as store from "./store";

const SEAL_LABEL = "escrow signing keys";

export type SigningKey = { id: string; publicKey: string; privateKey: KeyObject };

const current = processSingleton("escrow.signingKey", () => ({ key: null as Promise<SigningKey> | null }));

/**
 * The key snapshots are signed with now: ESCROW_SIGNING_KEY's, else the one the service generated
 * the first time it needed one (kept sealed under AUTH_SECRET, like webhook secrets). Settled once
 * a process; a new ESCROW_SIGNING_KEY retires the previous key, which stays listed.
 */
export function signingKey(): Promise<SigningKey> {
  const holder = current.get();
  holder.key ??= settle().catch((error: unknown) => {
    holder.key = null;
    throw error;
  });
  return holder.key;
}

async function settle(): Promise<SigningKey> {
  const configured = config().ESCROW_SIGNING_KEY;
  const configuredKey = configured === undefined ? null : configuredPrivateKey(configured);
  const row = await store.settleCurrentKey(configuredKey && { ...describe(configuredKey), sealedPrivateKey: null }, () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    return { ...describe(privateKey), sealedPrivateKey: sealUnderAuthSecret(pem, SEAL_LABEL) };
  });
  const privateKey =
    row.sealedPrivateKey === null ? configuredKey! : createPrivateKey(unsealUnderAuthSecret(row.sealedPrivateKey, SEAL_LABEL));
  return { id: row.id, publicKey: row.publicKey, privateKey };
}

/** The PKCS #8 DER of an Ed25519 key holds its 32-byte seed after these 16 bytes (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** The key ESCROW_SIGNING_KEY names (its shape checked by lib/config); a sentence naming the setting when it is no Ed25519 key. */
function configuredPrivateKey(text: string): KeyObject {
  let key: KeyObject;
  try {
    key = text.startsWith("-----BEGIN")
      ? createPrivateKey(text)
      : createPrivateKey({
          key: Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64")]),
          format: "der",
          type: "pkcs8",
        });
  } catch {
    throw new Error("ESCROW_SIGNING_KEY cannot be read as a private key: set a PKCS #8 PEM or a 32-byte seed in base64.");
  }
  if (key.asymmetricKeyType !== "ed25519")
    throw new Error(`ESCROW_SIGNING_KEY is a ${key.asymmetricKeyType} key; it must be Ed25519.`);
  return key;
}

function describe(privateKey: KeyObject): { id: string; publicKey: string } {
  const raw = rawPublicKey(privateKey);
  return { id: keyId(raw), publicKey: raw.toString("base64url") };
}

/** The well-known document: every key, current and past, so a snapshot signed years ago still verifies. */
export async function keysDocument(): Promise<EscrowKeysDocument> {
  await signingKey();
  const keys = await store.allKeys();
  return {
    format: ESCROW_FORMAT,
    version: ESCROW_VERSION,
    service: config().BASE_URL,
    keys: keys.map((key) => ({
      id: key.id,
      algorithm: "Ed25519",
      public_key: key.publicKey,
      created_at: key.createdAt.toISOString(),
      retired_at: key.retiredAt?.toISOString() ?? null,
    })),
  };
}

/** Forgets the settled key (tests that change ESCROW_SIGNING_KEY). */
export function resetSigningKey(): void {
  current.reset();
}
