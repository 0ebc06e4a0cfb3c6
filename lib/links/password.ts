import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * A link's password is kept as a salted scrypt hash, never the password: `scrypt$N$r$p$salt$hash`,
 * salt and hash base64url. N = 2^14, r = 8, p = 1 (16 MiB, some tens of milliseconds) is Node's
 * default and OWASP's floor for scrypt; the parameters travel with each hash, so a later change
 * leaves existing passwords verifiable.
 */
const COST = 16_384;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** 128 × N × r bytes are needed; the headroom lets a stored hash with these parameters verify. */
const MAX_MEMORY = 64 * 1024 * 1024;

export const PASSWORD_MIN = 4;
export const PASSWORD_MAX = 200;

function derive(password: string, salt: Buffer, cost: number, blockSize: number, parallelism: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize("NFC"),
      salt,
      KEY_BYTES,
      { N: cost, r: blockSize, p: parallelism, maxmem: MAX_MEMORY },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST, BLOCK_SIZE, PARALLELISM);
  return ["scrypt", COST, BLOCK_SIZE, PARALLELISM, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Whether `password` is the one `stored` was made from; a hash this code did not write verifies nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, cost, blockSize, parallelism, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !key) return false;
  const expected = Buffer.from(key, "base64url");
  const derived = await derive(password, Buffer.from(salt, "base64url"), Number(cost), Number(blockSize), Number(parallelism));
  return derived.length === expected.length && timingSafeEqual(derived, expected);
}
