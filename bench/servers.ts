import { freePort, FRONT_NODE_FLAGS, productionEnv } from "@/server/app-process";
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { onCpu, SERVER_CPU } from "./cpus";

export type BenchServer = { url: string; pid: number; stop(): Promise<void>; output(): string };

/**
 * Which process answers: the bare node:http reference, bare node:http with the front door's answers,
 * `npm start`'s front door, `next start` (proxy.ts), or `next start` of the bench's floor project
 * (a proxy.ts with a fixed answer: Next's own cost).
 */
export type ServerKind = "reference" | "floor" | "front" | "proxy" | "proxy-floor";

/** The Next project whose proxy.ts answers every visit with a fixed 302. */
export const NEXT_FLOOR_DIR = "bench/next-floor";

function command(kind: ServerKind, port: number, nodeFlags: string[]): string[] {
  switch (kind) {
    case "reference":
      return [...nodeFlags, "--import", "tsx", "bench/reference-server.ts", String(port)];
    case "floor":
      return [...nodeFlags, "--import", "tsx", "bench/answer-floor-server.ts", String(port)];
    case "front":
      // Node itself, not the tsx launcher, so the pid is the server's (its memory, its profile).
      return [...FRONT_NODE_FLAGS, ...nodeFlags, "--import", "tsx", "scripts/start.ts"];
    case "proxy":
      return [...nodeFlags, "node_modules/next/dist/bin/next", "start", "-p", String(port)];
    case "proxy-floor":
      return [...nodeFlags, "node_modules/next/dist/bin/next", "start", NEXT_FLOOR_DIR, "-p", String(port)];
  }
}

/** Starts a server on a free port with only `env` (plus PATH and HOME) and waits until it answers. */
export async function startServer(
  kind: ServerKind,
  env: Record<string, string | undefined>,
  nodeFlags: string[] = [],
): Promise<BenchServer> {
  const port = await freePort();
  // taskset execs the command, so the pid is still the server's.
  const [program, args] = onCpu(SERVER_CPU, process.execPath, command(kind, port, nodeFlags));
  const child = spawn(program, args, {
    env: productionEnv(port, env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const probe = {
    reference: "/ref",
    floor: "/redirect",
    front: "/api/openapi.json",
    proxy: "/api/openapi.json",
    "proxy-floor": "/",
  }[kind];
  await waitUntilAnswering(`${url}${probe}`, child, () => output);
  return { url, pid: child.pid!, stop: () => stop(child), output: () => output };
}

async function waitUntilAnswering(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${path.basename(url)} server exited with ${child.exitCode}:\n${output()}`);
    const answered = await fetch(url, { redirect: "manual" }).then(
      (response) => response.status < 500,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`The server did not answer within 120 s:\n${output()}`);
}

/** SIGTERM (the front door flushes its scan buffer and, with --cpu-prof, writes its profile), SIGKILL after 20 s. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.once("exit", () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** The process's resident set size in bytes (Linux /proc; null elsewhere). */
export async function residentBytes(pid: number): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => null);
  const kilobytes = status?.match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
  return kilobytes === undefined ? null : Number(kilobytes) * 1024;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system) the process has used, in microseconds (Linux /proc; null elsewhere). */
export async function cpuMicros(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat === null) return null;
  // Fields after the command name (which may hold spaces) in parentheses; utime and stime are 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND) * 1e6;
}

/**
 * The servers are started with this process's Node: outside npm (`node_modules/.bin/tsx bench/run.ts`
 * from a shell) that is the machine's own Node, whose HTTP stack differs (Node 20 here wrote every
 * answer as two chunks through writev), so the numbers would not be the app's as it runs.
 */
export function requireProjectNode(): void {
  const major = process.versions.node.split(".")[0];
  if (major !== "24") {
    console.error(
      `npm run bench measures the app on its own Node 24 and this is Node ${process.versions.node}: ` +
        `run it as \`npm run bench\` (or \`npx tsx bench/run.ts\`), which puts the project's Node first.`,
    );
    process.exit(1);
  }
}
