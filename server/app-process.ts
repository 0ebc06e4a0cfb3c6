import { spokenDuration, tellOperator } from "@/lib/log/plain";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

/** Which door answers short links: the self-hosted node:http front, or Next's proxy.ts alone. */
export type Door = "front" | "proxy";

export type RunningApp = {
  url: string;
  port: number;
  /** The server's own process (the front door under `npm start`). */
  pid: number;
  stop(): Promise<number | null>;
  output(): string;
  /** Resolves when the server's process has ended, however it ended. */
  exited: Promise<void>;
};

const SOURCES = ["app", "lib", "components", "proxy.ts", "instrumentation.ts", "next.config.ts", "package.json"];

function newestSourceTime(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(0, ...readdirSync(entry).map((child) => newestSourceTime(path.join(entry, child))));
}

/** How often a build being watched by a person says it is still going. */
export const BUILD_PROGRESS_EVERY_MS = 15_000;

/**
 * Builds the app (or the Next project in `dir`, such as the bench's floor) unless its `.next` is newer than every
 * source file. With `showOutput`, the person at the terminal reads what is happening: a plain line before the build,
 * one every `progressEveryMs` while it runs (Next prints nothing for minutes on a small machine), and one at the end.
 */
export async function ensureFreshBuild(
  options: { showOutput?: boolean; dir?: string; progressEveryMs?: number } = {},
): Promise<void> {
  const dir = options.dir ?? ".";
  const buildId = path.join(dir, ".next/BUILD_ID");
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  if (built > Math.max(...SOURCES.map((source) => newestSourceTime(path.join(dir, source))))) return;
  const say = options.showOutput ? tellOperator : () => undefined;
  say(
    built === 0
      ? "Building the app (first start only, a few minutes)…"
      : "Rebuilding the app: the code changed since its last build (a few minutes)…",
  );
  const started = Date.now();
  const progress = setInterval(
    () => say(`Still building the app (${spokenDuration(Date.now() - started)} so far)…`),
    options.progressEveryMs ?? BUILD_PROGRESS_EVERY_MS,
  );
  try {
    await runBuild(dir, Boolean(options.showOutput));
  } finally {
    clearInterval(progress);
  }
  say(`Built in ${spokenDuration(Date.now() - started)}.`);
}

function runBuild(dir: string, showOutput: boolean): Promise<void> {
  const child = spawn("node_modules/.bin/next", ["build", dir], {
    stdio: showOutput ? "inherit" : "pipe",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`next build failed:\n${output}`))));
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The Node flags `npm start` runs the front door with (package.json's start script repeats them;
 * tests/project/runtime.test.ts checks they agree).
 * - A 32 MiB young generation lets a busy front's short-lived objects (visits, buffered scans) die
 *   young instead of growing the old generation: measured over 60 s of warm redirects, resident
 *   memory grew ×1.40 with Node's default and ×1.17 with it.
 * - No allocation-site pretenuring: when the first burst of visits meets a scavenge while most of
 *   them wait on the database, V8 sees their objects survive and decides, for the process's life,
 *   to allocate a per-request object straight into the old generation. Every request then leaves
 *   old garbage pointing into the young generation: scavenges of 12–19 ms instead of under 1 ms,
 *   a mark-compact a second, ~120 MiB more resident memory and a third fewer requests a second.
 *   It struck 8 of 23 front processes (`--trace-pretenuring` shows the decision); with this flag,
 *   none of 10.
 */
export const FRONT_NODE_FLAGS = ["--max-semi-space-size=32", "--no-allocation-site-pretenuring"];

/** A production server's whole environment: `env` plus PATH and HOME, on `port`, nothing inherited beyond that. */
export function productionEnv(port: number, env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...env,
    PORT: String(port),
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
  };
}

/** Starts the built app on `port` (a free one by default) with only `env` (plus PATH and HOME), and waits until it answers. */
export async function startApp(door: Door, env: Record<string, string | undefined>, port?: number): Promise<RunningApp> {
  port ??= await freePort();
  // As `npm start` runs it: node itself (tsx as a loader), so SIGTERM reaches the server's own handler.
  const command =
    door === "front"
      ? [process.execPath, [...FRONT_NODE_FLAGS, "--import", "tsx", "scripts/start.ts"]]
      : ["node_modules/.bin/next", ["start", "-p", String(port)]];
  const child = spawn(command[0] as string, command[1] as string[], {
    env: productionEnv(port, env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(url, child, () => output);
  return { url, port, pid: child.pid!, stop: () => stopProcess(child), output: () => output, exited };
}

async function waitUntilAnswering(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The app exited with ${child.exitCode}:\n${output()}`);
    const answered = await fetch(`${url}/api/openapi.json`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`The app did not answer within 60 s:\n${output()}`);
}

/** SIGTERM, then SIGKILL after 10 s; resolves to the exit code (null when it had to be killed). */
function stopProcess(child: ChildProcess): Promise<number | null> {
  // A child killed by a signal has no exit code, and its exit event has passed.
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", (code) => {
      clearTimeout(killer);
      resolve(code);
    });
    child.kill("SIGTERM");
  });
}
