import { execFile, spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { LOAD_CPU, onCpu } from "./cpus";

const run = promisify(execFile);

/** A desktop browser's User-Agent: the scan recorder does not count bots, and `wrk/4.x` may look like one. */
export const BROWSER_USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export type WrkResult = {
  requests: number;
  durationUs: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  /** Answers with a status of 400 or more. */
  statusErrors: number;
  timeouts: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
};

export type WrkOptions = {
  url: string;
  /** One path is sent as wrk's static request; several rotate through the Lua script. */
  paths: string[];
  host: string;
  seconds: number;
  connections: number;
  threads: number;
  /**
   * Instead of `paths`: a link at random among `links` (slugs prefix + index) a request, from a browser
   * among `agents` and a random address.
   */
  spread?: { prefix: string; links: number; agents: string[] };
};

/** Exits with the install command when wrk is not on PATH. */
export function requireWrk(): void {
  const probe = spawnSync("wrk", ["--version"], { encoding: "utf8" });
  if (probe.error) {
    console.error(
      "npm run bench needs wrk, the HTTP load generator, and it is not installed.\n" +
        "  Debian/Ubuntu: sudo apt-get install wrk\n  macOS:         brew install wrk\nthen run `npm run bench` again.",
    );
    process.exit(1);
  }
}

/** Drives GET requests with wrk and returns its summary (latencies in microseconds). */
export async function wrk(options: WrkOptions): Promise<WrkResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (options.paths.length > 1) {
    const file = path.join(os.tmpdir(), `bench-paths-${process.pid}.txt`);
    await writeFile(file, `${options.paths.join("\n")}\n`);
    env.WRK_PATHS = file;
  } else {
    delete env.WRK_PATHS;
  }
  delete env.WRK_SPREAD_PREFIX;
  if (options.spread) {
    const agents = path.join(os.tmpdir(), `bench-agents-${process.pid}.txt`);
    await writeFile(agents, `${options.spread.agents.join("\n")}\n`);
    Object.assign(env, {
      WRK_SPREAD_PREFIX: options.spread.prefix,
      WRK_SPREAD_LINKS: String(options.spread.links),
      WRK_SPREAD_AGENTS: agents,
    });
  }
  const args = [
    `-t${options.threads}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    "--timeout",
    "5s",
    "-s",
    path.resolve("bench/wrk.lua"),
    "-H",
    `Host: ${options.host}`,
    "-H",
    `User-Agent: ${BROWSER_USER_AGENT}`,
    "-H",
    "Accept: text/html",
    `${options.url}${options.paths[0]}`,
  ];
  const { stdout } = await run(...onCpu(LOAD_CPU, "wrk", args), { env, maxBuffer: 1 << 20 });
  const line = stdout.split("\n").find((text) => text.startsWith("WRK_RESULT "));
  if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
  return JSON.parse(line.slice("WRK_RESULT ".length)) as WrkResult;
}

export function socketErrors(result: WrkResult): number {
  return result.connectErrors + result.readErrors + result.writeErrors + result.timeouts;
}
