import { createServer } from "node:http";
import next from "next";
import { settleBillingProvider } from "@/lib/billing/provider";
import { onInvalidation } from "@/lib/links/invalidation";
import { type ApplicationMessage, INVALIDATIONS_SENT_HEADER } from "./application";

/**
 * The application process `npm start` forks (scripts/application.ts): Next on a loopback port,
 * reporting link changes to the front door over IPC. Not meant to be run by hand.
 */
async function main(): Promise<void> {
  settleBillingProvider();
  const app = next({ dev: false, dir: process.cwd() });
  await app.prepare();
  const handle = app.getRequestHandler();
  const tell = (message: ApplicationMessage) => process.send?.(message);
  let invalidationsSent = 0;
  onInvalidation((invalidation) => {
    tell({ kind: "invalidation", invalidation });
    invalidationsSent++;
  });
  const server = createServer((request, response) => {
    // Stamped when the head is written (Next's implicit heads go through writeHead too), after the route's changes.
    const writeHead = response.writeHead;
    response.writeHead = function (this: typeof response, ...args: Parameters<typeof writeHead>) {
      this.setHeader(INVALIDATIONS_SENT_HEADER, String(invalidationsSent));
      return writeHead.apply(this, args);
    } as typeof writeHead;
    void handle(request, response);
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    if (address && typeof address === "object") tell({ kind: "ready", port: address.port });
  });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  // The front door is gone (crashed or killed): nothing can reach this process any more.
  process.on("disconnect", () => process.exit(0));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
