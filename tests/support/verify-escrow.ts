import { spawn } from "node:child_process";

export type ServedEscrow = { url: string; stop(): void };

/**
 * `verify-escrow ARGS --serve`, run as a person runs it, until it says where it serves. It runs in
 * its own process group (npx starts tsx, which starts node), so `stop` ends all of them.
 */
export function serveEscrow(args: string[], timeoutMs: number): Promise<ServedEscrow> {
  const child = spawn("npx", ["tsx", "scripts/verify-escrow.ts", ...args, "--serve"], {
    env: { ...process.env, DATABASE_URL: "" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const stop = () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // Already ended.
    }
  };
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`verify-escrow --serve did not start: ${output}`));
    }, timeoutMs);
    const read = (chunk: Buffer) => {
      output += chunk;
      const serving = output.match(/Serving \d+ codes as redirects at (http:\/\/\S+)/);
      if (serving) {
        clearTimeout(timer);
        resolve({ url: serving[1]!, stop });
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => reject(new Error(`verify-escrow --serve exited with ${code}: ${output}`)));
  });
}
