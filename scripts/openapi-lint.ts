/**
 * `npm run lint:openapi`: the OpenAPI document as a public deployment that takes machine payments
 * serves it (every part of it, x-payment-info included), checked by Spectral's `oas` ruleset
 * (.spectral.yaml: fails on any warning) and Redocly's `recommended` (redocly.yaml: fails on any error;
 * its three warnings are explained there). CI (.ci/run) runs it.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { openApiDocumentWith } from "./openapi-document";

const PUBLIC_DEPLOYMENT = {
  NODE_ENV: "production",
  BILLING_PROVIDER: "local",
  BASE_URL: "https://links.permalink.test",
  PAYMENT_RECIPIENT: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
  MPP_SECRET_KEY: "a-secret-that-only-shapes-the-document-0123456789",
};

const root = path.resolve(import.meta.dirname, "..");
const bin = (name: string) => path.join(root, "node_modules/.bin", name);

const folder = await mkdtemp(path.join(tmpdir(), "permalink-openapi-"));
const file = path.join(folder, "openapi.json");
let failed = false;
try {
  await writeFile(file, JSON.stringify(openApiDocumentWith(PUBLIC_DEPLOYMENT), null, 2));
  // Neither tool may phone home: Redocly's usage report and update check are switched off.
  const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
  const runs: [string, string[]][] = [
    [bin("spectral"), ["lint", file, "--ruleset", path.join(root, ".spectral.yaml"), "--fail-severity", "warn"]],
    [bin("redocly"), ["lint", file, "--config", path.join(root, "redocly.yaml"), "--format", "stylish"]],
  ];
  for (const [command, args] of runs) {
    const run = spawnSync(command, args, { cwd: root, env, stdio: "inherit" });
    if (run.status !== 0) {
      console.error(`${path.basename(command)} found errors in the OpenAPI document (exit ${run.status ?? run.signal}).`);
      failed = true;
    }
  }
} finally {
  await rm(folder, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
