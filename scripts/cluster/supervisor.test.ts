import { stopChild } from "@/server/child-process";
import { eventually } from "@/tests/support/scan-stream";
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { supervise, type Supervisable } from "./supervisor";

/** A process that runs until it is killed, as the supervisor sees an instance. */
async function idleProcess(): Promise<Supervisable> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await new Promise((resolve) => child.once("spawn", resolve));
  return { pid: child.pid!, exited: new Promise((resolve) => child.once("exit", resolve)), stop: () => stopChild(child) };
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("a supervised process", () => {
  it("is started again after SIGKILL, later each time it dies young, and not once it was stopped", async () => {
    const supervised = await supervise("idle", idleProcess, { firstMs: 200, maxMs: 800, stableMs: 60_000 });
    try {
      const restartTimes: number[] = [];
      for (let kill = 0; kill < 3; kill++) {
        const pid = supervised.current().pid;
        const killedAt = Date.now();
        process.kill(pid, "SIGKILL");
        await eventually(async () => expect(supervised.current().pid).not.toBe(pid), 5_000);
        restartTimes.push(Date.now() - killedAt);
        expect(isRunning(supervised.current().pid)).toBe(true);
      }
      expect(supervised.starts()).toBe(4);
      // 200 ms, then 400, then 800: a crash loop backs off.
      expect(restartTimes[0]).toBeGreaterThanOrEqual(200);
      expect(restartTimes[1]).toBeGreaterThanOrEqual(400);
      expect(restartTimes[2]).toBeGreaterThanOrEqual(800);
    } finally {
      await supervised.stop();
    }
    const last = supervised.current().pid;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(isRunning(last)).toBe(false);
    expect(supervised.current().pid).toBe(last);
  });
});
