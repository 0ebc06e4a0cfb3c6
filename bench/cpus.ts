import { spawnSync } from "node:child_process";
import os from "node:os";

/**
 * On Linux with taskset and two or more CPUs, every server the bench measures (the reference, the
 * floor and the app alike) runs on CPU 0 and wrk on CPU 1. Left to the scheduler, where each ran
 * was one more difference between the reference's measurement and the app's; pinned, they meet
 * the same conditions.
 * PostgreSQL is left free: the CPU its scan writes take is the app's cost, wherever it runs.
 */
const pinning = os.cpus().length >= 2 && spawnSync("taskset", ["-c", "0", "true"]).status === 0;

export const SERVER_CPU = 0;
export const LOAD_CPU = 1;

/** The command and arguments that run `command` on `cpu` (unchanged where pinning is not available). */
export function onCpu(cpu: number, command: string, args: string[]): [string, string[]] {
  return pinning ? ["taskset", ["-c", String(cpu), command, ...args]] : [command, args];
}

/** A line for the bench's header: how the CPUs were shared. */
export function pinningNote(): string {
  return pinning ? "servers pinned to CPU 0, wrk to CPU 1" : "no CPU pinning (taskset or a second CPU missing)";
}
