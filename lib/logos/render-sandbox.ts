import { forkIdle } from "@/lib/idle-process";
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

/** What the renderer is asked to do with one upload (lib/logos/render-process.mjs). */
export type RenderJob = { bytes: Buffer; format: string; maxSide: number; maxSourcePixels: number; output?: "png" | "jpeg" };

/** What came of it: the renderer's own answer, or the sandbox's when it had to stop the renderer or could not start one. */
export type RenderOutcome =
  | { outcome: "encoded"; data: Uint8Array; width: number; height: number }
  | { outcome: "wrong_format"; format: string | undefined }
  | { outcome: "too_many_pixels"; width: number; height: number }
  | { outcome: "unreadable" }
  | { outcome: "timed_out" }
  | { outcome: "out_of_memory" }
  | { outcome: "starved" }
  | { outcome: "busy" }
  | { outcome: "unavailable" };

export type SandboxLimits = {
  /**
   * The render's own CPU time before its process is killed as too costly (wall-clock time where
   * there is no /proc to read it from).
   */
  timeoutMs: number;
  /**
   * Wall-clock time before a render that has not used up its CPU time is given up as starved: it
   * runs at idle priority, so redirects and the dashboard kept the CPU busy meanwhile.
   */
  wallClockMs: number;
  /** Resident memory the render's process may reach before it is killed. */
  memoryBytes: number;
  /** Renders at once; the rest wait in line. */
  concurrency: number;
  /** Renders that may wait; one more is answered `busy`. */
  queue: number;
  /** The renderer's script; lib/logos/render-process.mjs unless named. */
  script?: string;
};

/** Found at run time (the bundler must not try to bundle a script it never imports; next.config.ts names it for deployments). */
const RENDER_SCRIPT = path.join(/* turbopackIgnore: true */ process.cwd(), "lib/logos/render-process.mjs");
const WATCH_INTERVAL_MS = 20;
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * Renders untrusted images in a child process each, which is killed when it runs past its CPU time
 * or its memory. A process rather than a worker thread because libvips (and librsvg inside it)
 * allocates outside V8's heap, which a worker's resourceLimits do not count, and a native render
 * cannot be interrupted by terminating a worker; only the kernel can stop it, and only its resident
 * size (read from /proc, where there is one) tells what it holds. Few renders run at once and few
 * wait, so hostile uploads queue behind each other instead of taking the machine.
 *
 * The renderers are shared fairly between workspaces: each has a line of its own, served in turn
 * (one render from each workspace waiting before a second from any), and when every place is taken
 * a workspace with fewer uploads waiting takes the newest place of the one with the most, which is
 * answered busy. A workspace alone may use every place; ten slow uploads of one workspace no longer
 * turn another's away.
 */
export function createRenderSandbox(limits: SandboxLimits): {
  render(job: RenderJob, workspace: string): Promise<RenderOutcome>;
} {
  let running = 0;
  let waitingCount = 0;
  // Insertion order is the turn: a line that was served goes to the back.
  const lines = new Map<string, Waiter[]>();

  function startNext(): void {
    const next = lines.entries().next();
    if (next.done) return;
    const [workspace, line] = next.value;
    lines.delete(workspace);
    const waiter = line.shift()!;
    if (line.length > 0) lines.set(workspace, line);
    waitingCount--;
    running++; // handed over: no render arriving meanwhile can take this place
    waiter(true);
  }

  /** Frees a place for `workspace` by turning away the newest upload of the longest line, when that line is longer by two or more. */
  function makeRoomFor(workspace: string): boolean {
    const own = lines.get(workspace)?.length ?? 0;
    let longest: [string, Waiter[]] | null = null;
    for (const entry of lines) if (!longest || entry[1].length > longest[1].length) longest = entry;
    if (!longest || longest[1].length < own + 2) return false;
    const turnedAway = longest[1].pop()!;
    if (longest[1].length === 0) lines.delete(longest[0]);
    waitingCount--;
    turnedAway(false);
    return true;
  }

  function waitInLine(workspace: string): Promise<boolean> {
    return new Promise((resolve) => {
      const line = lines.get(workspace);
      if (line) line.push(resolve);
      else lines.set(workspace, [resolve]);
      waitingCount++;
    });
  }

  return {
    async render(job, workspace) {
      if (running < limits.concurrency) running++;
      else {
        if (waitingCount >= limits.queue && !makeRoomFor(workspace)) return { outcome: "busy" };
        if (!(await waitInLine(workspace))) return { outcome: "busy" };
      }
      try {
        return await renderInChild(job, limits);
      } finally {
        running--;
        startNext();
      }
    },
  };
}

/** An upload waiting for a renderer: told true when its turn comes, false when it was turned away. */
type Waiter = (start: boolean) => void;

function renderInChild(job: RenderJob, limits: SandboxLimits): Promise<RenderOutcome> {
  return new Promise((resolve) => {
    // No environment: the process that reads hostile input holds no secret.
    // Only on CPU time nothing else wants (lib/idle-process.ts): redirects and the dashboard come first.
    const child = forkIdle(/* turbopackIgnore: true */ limits.script ?? RENDER_SCRIPT, [], {
      serialization: "advanced",
      stdio: "ignore",
      env: { NODE_ENV: "production" },
      execArgv: [],
    });
    const stop = (outcome: RenderOutcome) => {
      settle(outcome);
      child.kill("SIGKILL");
    };
    const started = performance.now();
    // The render is judged by the CPU time it used, not by the time it waited for the CPU.
    const watch = setInterval(() => {
      if (residentBytes(child) > limits.memoryBytes) return stop({ outcome: "out_of_memory" });
      const elapsedMs = performance.now() - started;
      const usedMs = cpuMs(child) ?? elapsedMs;
      if (usedMs > limits.timeoutMs) return stop({ outcome: "timed_out" });
      if (elapsedMs > limits.wallClockMs) stop({ outcome: "starved" });
    }, WATCH_INTERVAL_MS);
    let settled = false;
    const settle = (outcome: RenderOutcome) => {
      if (settled) return;
      settled = true;
      clearInterval(watch);
      resolve(outcome);
    };
    child.once("message", (outcome: RenderOutcome) => settle(outcome));
    // A renderer killed by a signal without answering (libvips crashed on the input) read something it could not decode;
    // one that exited with a code never got as far as the image (its script is missing or would not load).
    child.once("close", (code, signal) => settle({ outcome: signal === null && code !== 0 ? "unavailable" : "unreadable" }));
    // The process could not be started at all (no memory, no process slots, no node binary).
    child.once("error", () => settle({ outcome: "unavailable" }));
    child.send(job, (error) => {
      if (error) settle({ outcome: "unavailable" });
    });
  });
}

/** The child's resident set size from /proc/<pid>/status; 0 where there is no /proc (the deadline still holds there). */
function residentBytes(child: ChildProcess): number {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const kilobytes = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kilobytes ? Number(kilobytes) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The CPU time (user and system) the child has used, from /proc/<pid>/stat; null where there is no /proc. */
function cpuMs(child: ChildProcess): number | null {
  try {
    const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND) * 1000;
  } catch {
    return null;
  }
}
