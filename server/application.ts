import { settleBillingProvider } from "@/lib/billing/provider";
import { settledValues } from "@/lib/config";
import { forkIdle } from "@/lib/idle-process";
import { deliverInvalidation, type Invalidation } from "@/lib/links/invalidation";
import { log } from "@/lib/log";
import next from "next";
import { type ChildProcess } from "node:child_process";
import { type IncomingMessage, type ServerResponse } from "node:http";
import { type Handler, InvalidationsHeard, proxyToApplication } from "./application-proxy";
import { stopChild } from "./child-process";

/** Where the front door sends every request that is not a short-link visit. */
export type Application = { handle: Handler; stop(): Promise<void> };

/** What the application process tells the front: that it listens, and which links changed. */
export type ApplicationMessage = { kind: "ready"; port: number } | { kind: "invalidation"; invalidation: Invalidation };

/** Next in this process: for `npm run dev` (hot reload) and the embedded database (one connection for the process). */
export async function applicationInProcess(dev: boolean, port: number): Promise<Application> {
  settleBillingProvider();
  const app = next({ dev, dir: process.cwd(), port });
  await app.prepare();
  const handle = app.getRequestHandler();
  return { handle: (request, response) => void handle(request, response), stop: async () => undefined };
}

/**
 * Next in a child process on a loopback port, so the front door's process holds none of Next's
 * per-request machinery (measured: about a fifth of a warm redirect's CPU). Requests are proxied
 * as they come, bodies streamed both ways; the child reports link changes over IPC so the
 * front's link cache drops them at once, as in one process.
 *
 * The front outlives the child: short links must not depend on the dashboard's process. When the
 * child dies (a crash, the kernel's out-of-memory killer), the front keeps answering short links,
 * answers everything else 503 with a sentence, and starts a new child after a growing pause.
 * Only a child that cannot start in the first place stops the server (the build or configuration
 * is broken, and restarting would not mend it).
 */
export async function applicationProcess(): Promise<Application> {
  const supervisor = new ApplicationSupervisor();
  await supervisor.start();
  return { handle: supervisor.handle, stop: () => supervisor.stop() };
}

/** Pauses before each restart of a child that died soon after starting; one that ran a while restarts after the first. */
const RESTART_DELAYS_MS = [1000, 2000, 5000, 10_000, 30_000];
const RAN_LONG_ENOUGH_MS = 60_000;

class ApplicationSupervisor {
  private running: { child: ChildProcess; handle: Handler } | null = null;
  private child: ChildProcess | null = null;
  private stopping = false;
  private hasBeenReady = false;
  private restarts = 0;
  private restartTimer: NodeJS.Timeout | undefined;

  readonly handle: Handler = (request, response) => {
    if (this.running) return this.running.handle(request, response);
    answerRestarting(request, response);
  };

  /** Starts a child and resolves once it listens; rejects when it exits first. */
  start(): Promise<void> {
    // The application's work (the dashboard, the API's writes, imports, logo checks) runs only on CPU
    // time the front does not want: lib/idle-process.ts.
    const child = forkIdle("server/next-server.ts", [], {
      env: { ...process.env, ...settledValues() },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.child = child;
    const heard = new InvalidationsHeard();
    const startedAt = Date.now();
    return new Promise((resolve, reject) => {
      child.on("message", (message: ApplicationMessage) => {
        if (message.kind === "invalidation") return heard.deliver(message.invalidation);
        this.running = { child, handle: proxyToApplication(message.port, heard) };
        this.hasBeenReady = true;
        log().info({ applicationPid: child.pid }, "the application process is ready");
        resolve();
      });
      child.once("exit", (exitCode, signal) => {
        if (this.running?.child === child) this.running = null;
        if (this.stopping) return;
        reject(new Error(`The application process exited with ${exitCode ?? signal} before it was ready.`));
        // It may have died between committing a change and telling us: forget every cached link.
        deliverInvalidation({ kind: "everything" });
        if (Date.now() - startedAt >= RAN_LONG_ENOUGH_MS) this.restarts = 0;
        if (this.hasBeenReady) this.scheduleRestart(exitCode, signal);
      });
    });
  }

  private scheduleRestart(exitCode: number | null, signal: NodeJS.Signals | null): void {
    const delayMs = RESTART_DELAYS_MS[Math.min(this.restarts, RESTART_DELAYS_MS.length - 1)]!;
    this.restarts++;
    log().error(
      { exitCode, signal, restartInMs: delayMs },
      "the application process died; short links keep being answered, the rest is answered 503 until it is back",
    );
    this.restartTimer = setTimeout(() => void this.start().catch(() => undefined), delayMs);
  }

  stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    return this.child ? stopChild(this.child) : Promise.resolve();
  }
}

const RESTARTING_MESSAGE = "The dashboard and API are restarting; short links keep working. Try again in a few seconds.";

function answerRestarting(request: IncomingMessage, response: ServerResponse): void {
  const isApi = request.url?.startsWith("/api/") ?? false;
  response
    .writeHead(503, {
      "Content-Type": isApi ? "application/json" : "text/plain; charset=utf-8",
      "Retry-After": "5",
      "Cache-Control": "no-store",
    })
    .end(isApi ? JSON.stringify({ error: RESTARTING_MESSAGE }) : RESTARTING_MESSAGE);
  request.resume();
}
