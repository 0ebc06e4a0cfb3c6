import { type ChildProcess, fork, type ForkOptions, spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { setPriority } from "node:os";
import { processSingleton } from "./process-singleton";

/** How this machine lets a process run only on CPU time no one else wants: chrt's path, or nice 19 where there is no chrt. */
export type IdleScheduling = { policy: "sched_idle"; chrt: string } | { policy: "nice"; nice: number };

/** The lowest priority a process may give itself anywhere (Linux, macOS). */
export const LOWEST_NICE = 19;

const scheduling = processSingleton<IdleScheduling>("idle-scheduling", detectIdleScheduling);

/** What forkIdle does on this machine, found once a process. */
export function idleScheduling(): IdleScheduling {
  return scheduling.get();
}

/**
 * Forks a Node module in a process that runs only when the CPU has nothing else to do: Linux's
 * SCHED_IDLE policy, set by util-linux's `chrt --idle 0` before Node starts, so every thread of the
 * process (V8's collector helpers and libuv's pool, not only the main thread) and every process it
 * forks inherit it. A process of the normal policy that wakes up preempts it at once, and it gets
 * the CPU back only when no such process wants it. The policy is relative within the scheduling
 * group (a container's or a service's cgroup, a terminal session's autogroup), so it yields to the
 * front door beside it, not to unrelated work elsewhere on the host.
 *
 * Without chrt (macOS, a minimal image), the process is set to nice 19 once started: a weight of 15
 * against the front's 1024, which only lowers the main thread on Linux.
 */
export function forkIdle(modulePath: string, args: string[], options: ForkOptions = {}): ChildProcess {
  const how = idleScheduling();
  if (how.policy === "sched_idle") {
    // fork() runs execPath with execArgv before the module: `chrt --idle 0 node [flags] module`, which then execs node
    // (same pid, same IPC channel).
    const execArgv = ["--idle", "0", process.execPath, ...(options.execArgv ?? process.execArgv)];
    return fork(modulePath, args, { ...options, execPath: how.chrt, execArgv });
  }
  const child = fork(modulePath, args, options);
  try {
    setPriority(child.pid!, how.nice);
  } catch {
    // Already gone (it failed to start: its "error" or "exit" event says so).
  }
  return child;
}

function detectIdleScheduling(): IdleScheduling {
  const chrt = process.platform === "linux" ? findChrt() : null;
  // A kernel or sandbox that refuses the policy makes chrt fail; nice 19 still holds there.
  // chrt is a system program, never part of the bundle: the tracer is told not to follow it.
  if (chrt && spawnSync(/*turbopackIgnore: true*/ chrt, ["--idle", "0", "true"], { stdio: "ignore" }).status === 0)
    return { policy: "sched_idle", chrt };
  return { policy: "nice", nice: LOWEST_NICE };
}

/** Where util-linux (or busybox) installs chrt; an absolute path, since a child forked with an environment of its own has no PATH. */
const CHRT_PATHS = ["/usr/bin/chrt", "/bin/chrt", "/usr/local/bin/chrt"];

function findChrt(): string | null {
  for (const candidate of CHRT_PATHS) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not installed there.
    }
  }
  return null;
}
