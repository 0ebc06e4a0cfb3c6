import { mintSessionToken } from "@/lib/auth/session-tokens";
import { loadConfiguration } from "@/server/boot";
import { parseArgs } from "node:util";

/** Prints a session token from the built-in identity provider, for scripts and tests. */
const { values } = parseArgs({ options: { email: { type: "string" }, "ttl-seconds": { type: "string" } } });
if (!values.email || !/^[^@\s]+@[^@\s]+$/.test(values.email)) {
  // A command's own output for the person who ran it, not a log line.
  process.stderr.write("Usage: npm run --silent session-token -- --email someone@example.com [--ttl-seconds 86400]\n");
  process.exit(2);
}
await loadConfiguration();
const ttl = values["ttl-seconds"] ? Number(values["ttl-seconds"]) : undefined;
try {
  process.stdout.write(`${await mintSessionToken(values.email, ttl)}\n`);
} catch (error) {
  if (!(error instanceof RangeError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}
process.exit(0);
