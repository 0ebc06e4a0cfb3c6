// Generates the Prisma client offline. `prisma generate` only needs its bundled wasm, but it
// tries to download the native schema engine unless PRISMA_SCHEMA_ENGINE_BINARY names a file.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? fileURLToPath(import.meta.url),
};
const result = spawnSync("prisma", ["generate"], { stdio: "inherit", env, shell: false });
process.exit(result.status ?? 1);
