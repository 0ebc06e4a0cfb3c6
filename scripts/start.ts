import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { spawnSync } from "node:child_process";
import next from "next";
import { scanBuffer } from "@/lib/analytics/scans";
import { config } from "@/lib/config";
import { createFrontDoor } from "@/lib/resolution/node-door";
import { startRecheckTimer } from "@/lib/resolution/recheck-timer";
import { boot } from "./boot";

const dev = process.argv.includes("--dev");

async function main(): Promise<void> {
  const { embedded } = await boot();
  if (!dev) buildIfMissing();
  const { PORT } = config();
  const app = next({ dev, dir: process.cwd(), port: PORT });
  await app.prepare();
  const handle = app.getRequestHandler();
  const server = createServer(createFrontDoor((request, response) => void handle(request, response)));
  server.listen(PORT, () => console.log(`Permalink is serving ${config().BASE_URL} (short links on ${config().SHORT_BASE_URL}) on port ${PORT}.`));
  const recheck = startRecheckTimer();

  const shutdown = () => {
    recheck.stop();
    server.close();
    void scanBuffer()
      .flush()
      .finally(async () => {
        await embedded?.close();
        process.exit(0);
      });
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}

function buildIfMissing(): void {
  if (existsSync(".next/BUILD_ID")) return;
  console.log("No production build found; running `next build` once (run `npm run build` after changing the code).");
  const result = spawnSync("next", ["build"], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
