import { threadPolicies } from "@/tests/support/scheduling";
import { once } from "node:events";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { forkIdle, idleScheduling } from "./idle-process";

/** A script that starts a few threads (a worker and libuv's pool), forks a child of its own, and reports both pids. */
async function reportingScript(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "idle-process-"));
  const script = join(folder, "report.mjs");
  await writeFile(
    script,
    `import { fork } from "node:child_process";
     import { Worker } from "node:worker_threads";
     import { pbkdf2 } from "node:crypto";
     if (process.argv[2] === "grandchild") {
       process.send("ready");
       setInterval(() => {}, 1000);
     } else {
       new Worker("setInterval(() => {}, 1000)", { eval: true });
       await new Promise((done) => pbkdf2("x", "y", 1, 8, "sha256", done));
       const grandchild = fork(process.argv[1], ["grandchild"], { execArgv: [] });
       await new Promise((ready) => grandchild.once("message", ready));
       process.send({ pid: process.pid, grandchild: grandchild.pid });
       process.once("disconnect", () => { grandchild.kill("SIGKILL"); process.exit(0); });
     }`,
  );
  return script;
}

describe.runIf(process.platform === "linux" && idleScheduling().policy === "sched_idle")("forkIdle on Linux with chrt", () => {
  it("runs every thread of the child, and every process it forks, under SCHED_IDLE, with its IPC channel", async () => {
    const child = forkIdle(await reportingScript(), [], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const [report] = (await once(child, "message")) as [{ pid: number; grandchild: number }];
    try {
      expect(report.pid, "the pid is Node's own (chrt execs it), so signals reach it").toBe(child.pid);
      const threads = threadPolicies(child.pid!);
      expect(threads.length).toBeGreaterThan(4);
      expect(new Set(threads)).toEqual(new Set(["idle"]));
      expect(new Set(threadPolicies(report.grandchild))).toEqual(new Set(["idle"]));
    } finally {
      child.disconnect();
      await once(child, "exit");
    }
  });
});
