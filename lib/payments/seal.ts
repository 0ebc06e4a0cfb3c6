import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The api_key of a new machine account is kept only sealed (AES-256-GCM under a key derived
 * from MPP_SECRET_KEY), on the key's row, and only for the replay window and until the key is
 * first used, so an identical resend after a lost response still receives it; the key itself is
 * stored as a hash like every other.
 */
export function sealApiKey(apiKey: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(secret), iv);
  const ciphertext = Buffer.concat([cipher.update(apiKey, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url");
}

/** The sealed key, or null when it was sealed under another secret (MPP_SECRET_KEY was rotated). */
export function openApiKey(sealed: string, secret: string): string | null {
  const bytes = Buffer.from(sealed, "base64url");
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealingKey(secret), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

function sealingKey(secret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "", "permalink machine api key seal", 32));
}
