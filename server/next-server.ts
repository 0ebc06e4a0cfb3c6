import { settleBillingProvider } from "@/lib/billing/provider";
import { behindFrontDoor } from "@/lib/http/client-address";
import { onInvalidation } from "@/lib/links/invalidation";
import { log } from "@/lib/log";
import next from "next";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ApplicationMessage } from "./application";
import { applicationServer, INVALIDATIONS_SENT_HEADER } from "./application-proxy";

/**
 * The application process `npm start` forks (server/application.ts): Next on a loopback port,
 * reporting link changes to the front door over IPC. Not meant to be run by hand.
 */
async function main(): Promise<void> {
  // Only the front door starts this process, and it appends the socket's peer to X-Forwarded-For of every request it hands over.
  behindFrontDoor.set(true);
  settleBillingProvider();
  const server = applicationServer();
  const port = await listenOnLoopback(server);
  // Next fetches a server action's redirect target from its own hostname and port: without them, from localhost:3000.
  const app = next({ dev: false, dir: process.cwd(), hostname: "127.0.0.1", port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const tell = (message: ApplicationMessage) => process.send?.(message);
  let invalidationsSent = 0;
  onInvalidation((invalidation) => {
    tell({ kind: "invalidation", invalidation });
    invalidationsSent++;
  });
  server.on("request", (request, response) => {
    // Stamped when the head is written (Next's implicit heads go through writeHead too), after the route's changes.
    const writeHead = response.writeHead;
    response.writeHead = function (this: typeof response, ...args: Parameters<typeof writeHead>) {
      this.setHeader(INVALIDATIONS_SENT_HEADER, String(invalidationsSent));
      return writeHead.apply(this, args);
    } as typeof writeHead;
    void handle(request, response);
  });
  tell({ kind: "ready", port });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  // The front door is gone (crashed or killed): nothing can reach this process any more.
  process.on("disconnect", () => process.exit(0));
}

/** Listens on a free loopback port, which only the front door is told of (once Next is ready). */
function listenOnLoopback(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

main().catch((error) => {
  log().fatal({ err: error }, "the application process could not start");
  process.exit(1);
});
