import { config } from "@/lib/config";
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";
/** 32 random bytes: within the 24 to 64 the Standard Webhooks specification asks of a secret. */
const SECRET_BYTES = 32;
const SEAL_VERSION = "v1";
const IV_BYTES = 12;

/** A new signing secret in the Standard Webhooks form: whsec_ and the key in base64. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** The HMAC key a secret stands for: the base64 after whsec_. */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
}

/**
 * The secret as it is stored: AES-256-GCM under a key derived from AUTH_SECRET (HKDF, its own
 * label), so a copy of the database alone does not let anyone sign messages. Signing needs the
 * secret itself, so it cannot be hashed like an API key.
 */
export function sealSecret(secret: string): string {
  return sealUnderAuthSecret(secret, WEBHOOK_LABEL);
}

export function unsealSecret(stored: string): string {
  return unsealUnderAuthSecret(stored, WEBHOOK_LABEL);
}

const WEBHOOK_LABEL = "webhook signing secrets";

/** A secret the service must use again (a signing key), sealed as webhook secrets are, under a key of its own `label`. */
export function sealUnderAuthSecret(secret: string, label: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(label), iv);
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [SEAL_VERSION, iv.toString("base64url"), sealed.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(
    ".",
  );
}

export function unsealUnderAuthSecret(stored: string, label: string): string {
  const [version, iv, sealed, tag] = stored.split(".");
  if (version !== SEAL_VERSION || !iv || !sealed || !tag)
    throw new Error(`A sealed secret (${label}) is stored in an unknown form.`);
  const decipher = createDecipheriv("aes-256-gcm", sealingKey(label), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]).toString("utf8");
}

function sealingKey(label: string): Buffer {
  const authSecret = config().AUTH_SECRET;
  if (!authSecret) throw new Error(`AUTH_SECRET is needed to keep ${label} sealed.`);
  return Buffer.from(hkdfSync("sha256", authSecret, "permalink", label, 32));
}
