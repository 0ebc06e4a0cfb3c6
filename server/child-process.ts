import type { ChildProcess } from "node:child_process";

/** Ends a child this process started and resolves once it has exited (SIGKILL after 10 s of `signal`). */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill(signal);
  });
}
