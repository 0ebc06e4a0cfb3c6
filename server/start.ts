import { startScanStreamWriter } from "@/lib/analytics/scan-stream";
import { parkScansWhenBehind, scanBuffer } from "@/lib/analytics/scans";
import { holdsDeploymentSecret } from "@/lib/api/deployment-secret";
import { JOBS } from "@/lib/api/jobs";
import { signInLinksPrinted } from "@/lib/auth/sign-in-methods";
import { config } from "@/lib/config";
import { answeringHealth } from "@/lib/health/front";
import { behindFrontDoor } from "@/lib/http/client-address";
import { refusingMalformedRequests } from "@/lib/http/malformed-request";
import { enforcingBodyRate, FRONT_SERVER_OPTIONS } from "@/lib/http/request-deadlines";
import { log } from "@/lib/log";
import { tellOperator } from "@/lib/log/plain";
import { closeNats, natsConfigured } from "@/lib/nats/connection";
import { createFrontDoor } from "@/lib/resolution/node-door";
import { startJob } from "@/lib/schedule";
import { createServer } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { ensureFreshBuild } from "./app-process";
import { applicationInProcess, applicationProcess } from "./application";
import { boot } from "./boot";

/**
 * SIGTERM to exit, at most: under the 10 s that Docker and most supervisors wait before SIGKILL.
 * In-flight requests get up to REQUESTS_GRACE_MS of it, the scan buffer the rest.
 */
const SHUTDOWN_GRACE_MS = 9000;
const REQUESTS_GRACE_MS = 3000;

/** Why listening failed, in words, for the errors an operator's HOST or PORT can cause. */
const LISTEN_ERRORS: Record<string, string> = {
  EADDRNOTAVAIL: "HOST is not an address of this machine",
  EADDRINUSE: "another process already listens on that port",
  EACCES: "this user may not listen on that port",
};

function listenAddress(host: string | undefined, port: number): string {
  if (!host) return `port ${port} of every interface`;
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** What the person who ran `npm start` reads once it serves: the address to open and how to sign in there. */
function readyLine(): string {
  const signIn = signInLinksPrinted() ? " — sign in with any e-mail; the sign-in link appears here" : "";
  return `Ready: open ${config().BASE_URL}${signIn}`;
}

/**
 * `npm start`: the front door (node:http, the short-link redirect and readiness) in this process,
 * Next behind it in its own (or in this one for `--dev` and the embedded database), the scheduled
 * jobs and the scan stream; SIGTERM and SIGINT shut it down within SHUTDOWN_GRACE_MS.
 */
export async function startServer({ dev }: { dev: boolean }): Promise<void> {
  // Every request reaches Next through createFrontDoor, which appends the socket's peer to X-Forwarded-For.
  behindFrontDoor.set(true);
  const { embedded } = await boot({ serving: true });
  if (!dev) await ensureFreshBuild({ showOutput: true });
  const { PORT, HOST } = config();
  // Next in its own process keeps its per-request machinery off the redirect path; hot reload and a
  // database of one connection for everything (the embedded one, or DATABASE_POOL_SIZE=1: npm run bench
  // hands its app the embedded database that way) keep it in this one.
  const oneConnection = embedded !== undefined || config().DATABASE_POOL_SIZE <= 1;
  const application = dev || oneConnection ? await applicationInProcess(dev, PORT) : await applicationProcess();
  parkScansWhenBehind();
  const server = createServer(
    FRONT_SERVER_OPTIONS,
    refusingMalformedRequests(
      enforcingBodyRate(
        createFrontDoor(answeringHealth(application.handle, (authorization) => holdsDeploymentSecret(authorization, "operator"))),
      ),
    ),
  );
  // Only while starting: an address this machine lacks (EADDRNOTAVAIL) or a port taken (EADDRINUSE) ends the start with a sentence.
  const cannotListen = (error: NodeJS.ErrnoException) => {
    log().fatal(
      { err: error },
      `the server cannot listen on ${listenAddress(HOST, PORT)}: ${LISTEN_ERRORS[error.code ?? ""] ?? error.message}`,
    );
    void application
      .stop()
      .then(() => embedded?.close())
      .finally(() => process.exit(1));
  };
  server.once("error", cannotListen);
  // HOST unset: every interface. Behind a proxy on this machine, HOST=127.0.0.1 keeps clients from reaching
  // this port directly and writing X-Forwarded-For entries that TRUSTED_PROXY_HOPS would take for the proxy's.
  server.listen(PORT, HOST, () => {
    server.off("error", cannotListen);
    log().info(
      { baseUrl: config().BASE_URL, shortBaseUrl: config().SHORT_BASE_URL, host: HOST ?? "every interface", port: PORT },
      "serving",
    );
    tellOperator(readyLine());
  });
  const schedules = JOBS.map(startJob);
  const scanStream = natsConfigured() ? startScanStreamWriter() : null;

  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    for (const schedule of schedules) schedule.stop();
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    // Answer the requests in flight (their scans join the buffer), then write what the time allows.
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    void Promise.race([closed, sleep(REQUESTS_GRACE_MS)])
      .then(async () => {
        const [unwritten] = await Promise.all([scanBuffer().drain(deadline), application.stop()]);
        // A stream message being written is rolled back with the process's connection and redelivered
        // to another instance: the process waits for it only until the deadline.
        const untilDeadline = () => sleep(Math.max(0, deadline - Date.now()));
        await Promise.race([scanStream?.stop(), untilDeadline()]);
        await Promise.race([closeNats(), untilDeadline()]);
        if (unwritten > 0)
          log().error(
            `Shutting down with scans still unwritten: ${unwritten} scans could not be written or parked within the ` +
              `${SHUTDOWN_GRACE_MS / 1000} s shutdown grace period and are lost.`,
          );
      })
      .finally(async () => {
        await embedded?.close();
        process.exit(0);
      });
  };
  // `on`, not `once`: a second signal (a terminal signals the whole group; supervisors repeat) must not kill the flush half-way.
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}
