import { readdirSync, readFileSync } from "node:fs";

const POLICIES: Record<number, string> = { 0: "normal", 1: "fifo", 2: "round-robin", 3: "batch", 5: "idle", 6: "deadline" };

/** The scheduling policy of each thread of a process, from Linux's /proc/<pid>/task/<tid>/stat (the 41st field). */
export function threadPolicies(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((thread) => {
    const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, "utf8");
    const policy = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[38]);
    return POLICIES[policy] ?? `policy ${policy}`;
  });
}
