import { config } from "@/lib/config";
import { clientNetwork } from "@/lib/http/client-address";
import { createHmac } from "node:crypto";

/**
 * Keys the reporter hash when AUTH_SECRET is unset (a deployment signing in through AUTH_JWKS_URL).
 * A public key lets anyone who reads the table test every network, so set AUTH_SECRET.
 */
const FALLBACK_REPORTER_SALT = "permalink-abuse-reporter";

/** Who is reporting, as a keyed hash of their network: enough to tell reporters apart and rate-limit them without keeping the address. */
export function reporterKey(clientAddress: string): string {
  return createHmac("sha256", config().AUTH_SECRET ?? FALLBACK_REPORTER_SALT)
    .update(clientNetwork(clientAddress))
    .digest("hex");
}
