import { log } from "@/lib/log";
import { startServer } from "@/server/start";

startServer({ dev: process.argv.includes("--dev") }).catch((error) => {
  log().fatal({ err: error }, "the server could not start");
  process.exit(1);
});
