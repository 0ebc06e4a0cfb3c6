import type { InstancesExact } from "./instances";
/** One scenario's numbers from one run. */
export type Row = {
  key: ScenarioKey;
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers outside the expected class (3xx, or 4xx for the unknown slug), plus socket errors and time-outs. */
  unexpected: number;
  /** Redirects wrk counted (3xx scenarios). */
  redirects: number | null;
  /** Scans the database gained during the scenario, after the app's buffer flushed. */
  scans: number | null;
  /** Scans the app's buffer dropped at its bound during the scenario, counted and logged (scenarios with scans). */
  droppedScans: number | null;
  /** The server process's CPU time (user + system) per request answered, scan writes included. */
  cpuMicrosPerRequest: number | null;
  /** The reference's requests/s in slices taken in turns with this scenario's: the ratio's denominator. */
  pairedReference: number | null;
};

export type ScenarioKey =
  | "reference"
  | "floor-redirect"
  | "floor-unknown"
  | "quarantined"
  | "active"
  | "rules"
  | "unknown"
  | "silent"
  | "sustained"
  | "cold"
  | "cold-big"
  | "logos-quiet"
  | "logos-hostile"
  | "proxy-floor"
  | "proxy"
  | "proxy-upstash";

export type RunResult = {
  referenceBefore: Row;
  referenceAfter: Row;
  rows: Row[];
  memory: { afterWarmUpBytes: number; afterLoadBytes: number; ratio: number } | null;
  exact: { visits: number; redirects: number; other: number; scans: number } | null;
  /** The exact phase again across two and three instances on one database (and NATS). */
  instances: InstancesExact[] | null;
  /** The silent link's first visits, sent at once on the warmed-up server: they wait for its first check. */
  silentFirstVisits: { visits: number; medianMs: number; maxMs: number } | null;
  /** The hostile logo uploads made during the logos-hostile slices, by status. */
  hostileUploads: { uploads: number; byStatus: Record<string, number> } | null;
};

type Spread = { median: number; min: number; max: number };

export type ScenarioSummary = {
  key: ScenarioKey;
  scenario: string;
  requestsPerSecond: Spread;
  ratio: Spread | null;
  p50Ms: Spread;
  p99Ms: Spread;
  cpuMicrosPerRequest: Spread | null;
  unexpected: number;
  /**
   * Scans recorded (plus any the buffer dropped at its bound, counted and logged) − redirects:
   * 0 up to the connections in flight each time wrk stopped (once a slice).
   */
  scanSurplus: Spread | null;
  /** Most scans dropped at the buffer's bound in one run (counted in scanSurplus). */
  droppedScans: number;
  target: string | null;
  targetMetRuns: number;
};

export type Summary = {
  runs: number;
  connections: number;
  /** wrk loads a scenario this many times, in turns with the reference. */
  slices: number;
  scenarios: ScenarioSummary[];
  memoryRatio: Spread | null;
  exact: { runs: number; allExact: boolean; visits: number } | null;
  instances: InstancesExact[];
  silentFirstVisitMs: Spread | null;
  /** Each run's hostile logo uploads (logos-hostile), by status. */
  hostileUploads: { uploads: number; byStatus: Record<string, number> }[];
};

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

function cpuSpread(rows: Row[]): Spread | null {
  const values = rows.flatMap((row) => (row.cpuMicrosPerRequest === null ? [] : [row.cpuMicrosPerRequest]));
  return values.length ? spread(values) : null;
}

type Target = { text: string; met(row: Row, run: RunResult): boolean };

const rowIn = (run: RunResult, key: ScenarioKey) => run.rows.find((row) => row.key === key);
/**
 * Against the reference measured in turns with the scenario: this machine's speed drifts by a quarter
 * within minutes, so a reference taken before and after the whole app was often the wrong yardstick.
 */
const ratioOf = (row: Row) => row.requestsPerSecond / row.pairedReference!;
const ratioOfIn = (run: RunResult, key: ScenarioKey, missing: number) => {
  const row = rowIn(run, key);
  return row ? ratioOf(row) : missing;
};

/** The redirect's targets, checked per run against that run's own reference. */
const TARGETS: Partial<Record<ScenarioKey, Target>> = {
  quarantined: { text: "≥ 0.80, p99 ≤ 10 ms", met: (row) => ratioOf(row) >= 0.8 && row.p99Ms <= 10 },
  active: {
    text: "≥ quarantined, p99 ≤ 10 ms",
    met: (row, run) => row.p99Ms <= 10 && ratioOf(row) >= ratioOfIn(run, "quarantined", 0),
  },
  // Routing rules are evaluated from the cached link; 20 of them cost at most 15% of the warm redirect.
  rules: { text: "≥ 0.85 × active", met: (row, run) => ratioOf(row) >= 0.85 * ratioOfIn(run, "active", Infinity) },
  unknown: { text: "≥ 0.90, p99 ≤ 10 ms", met: (row) => ratioOf(row) >= 0.9 && row.p99Ms <= 10 },
  silent: {
    text: "≥ 0.5 × quarantined, p99 ≤ 50 ms",
    met: (row, run) => row.p99Ms <= 50 && ratioOf(row) >= 0.5 * ratioOfIn(run, "quarantined", Infinity),
  },
  sustained: { text: "resident memory ≤ 1.5× warm-up", met: (_row, run) => run.memory !== null && run.memory.ratio <= 1.5 },
  cold: { text: "≥ 5,000/s, p99 ≤ 25 ms", met: (row) => row.requestsPerSecond >= 5000 && row.p99Ms <= 25 },
  // Among ten million links, a lookup costs what an index probe costs, whatever the table's size.
  "cold-big": {
    text: "≥ cold ÷ 1.5, p99 ≤ 25 ms",
    met: (row, run) => row.p99Ms <= 25 && ratioOf(row) >= ratioOfIn(run, "cold", Infinity) / 1.5,
  },
  // Redirects keep their p99 while hostile logos are being refused (it went from 1.1 to 10.9 ms).
  "logos-hostile": { text: "p99 ≤ 10 ms", met: (row) => row.p99Ms <= 10 },
  // Next's proxy machinery is the floor, not the target (ADR 0008: the door's own work on every visit,
  // which no fixed answer does, measured ×2.10 of the floor's CPU a request); a growing gap is a regression.
  proxy: {
    text: "CPU ≤ 2.5 × Next's floor's",
    met: (row, run) => {
      const floor = rowIn(run, "proxy-floor")?.cpuMicrosPerRequest;
      return row.cpuMicrosPerRequest !== null && floor != null && row.cpuMicrosPerRequest <= 2.5 * floor;
    },
  },
  "proxy-upstash": {
    text: "≥ 0.90 × proxy.ts without it",
    met: (row, run) => ratioOf(row) >= 0.9 * ratioOfIn(run, "proxy", Infinity),
  },
};

export function summarise(runs: RunResult[], connections: number, slices: number): Summary {
  const references = runs.flatMap((run) => [run.referenceBefore, run.referenceAfter]);
  const scenarios: ScenarioSummary[] = [
    {
      key: "reference",
      scenario: "reference: bare node:http 302, own process, before the app, before each scenario and after the app",
      requestsPerSecond: spread(references.map((row) => row.requestsPerSecond)),
      ratio: null,
      p50Ms: spread(references.map((row) => row.p50Ms)),
      p99Ms: spread(references.map((row) => row.p99Ms)),
      cpuMicrosPerRequest: cpuSpread(references),
      unexpected: references.reduce((sum, row) => sum + row.unexpected, 0),
      scanSurplus: null,
      droppedScans: 0,
      target: null,
      targetMetRuns: 0,
    },
  ];
  for (const first of runs[0]?.rows ?? []) {
    const measured = runs.flatMap((run) => {
      const row = rowIn(run, first.key);
      return row ? [{ row, run }] : [];
    });
    const target = TARGETS[first.key];
    const scanned = measured.filter(({ row }) => row.scans !== null && row.redirects !== null);
    scenarios.push({
      key: first.key,
      scenario: first.scenario,
      requestsPerSecond: spread(measured.map(({ row }) => row.requestsPerSecond)),
      ratio: spread(measured.map(({ row }) => ratioOf(row))),
      p50Ms: spread(measured.map(({ row }) => row.p50Ms)),
      p99Ms: spread(measured.map(({ row }) => row.p99Ms)),
      cpuMicrosPerRequest: cpuSpread(measured.map(({ row }) => row)),
      unexpected: measured.reduce((sum, { row }) => sum + row.unexpected, 0),
      scanSurplus: scanned.length
        ? spread(scanned.map(({ row }) => row.scans! + (row.droppedScans ?? 0) - row.redirects!))
        : null,
      droppedScans: Math.max(0, ...measured.map(({ row }) => row.droppedScans ?? 0)),
      target: target?.text ?? null,
      targetMetRuns: target ? measured.filter(({ row, run }) => target.met(row, run)).length : 0,
    });
  }
  const memory = runs.flatMap((run) => (run.memory ? [run.memory.ratio] : []));
  const exact = runs.flatMap((run) => (run.exact ? [run.exact] : []));
  const silentFirst = runs.flatMap((run) => (run.silentFirstVisits ? [run.silentFirstVisits.maxMs] : []));
  return {
    runs: runs.length,
    connections,
    slices,
    scenarios,
    memoryRatio: memory.length ? spread(memory) : null,
    exact: exact.length
      ? {
          runs: exact.length,
          visits: exact[0]!.visits,
          allExact: exact.every((count) => count.redirects === count.visits && count.scans === count.visits),
        }
      : null,
    instances: runs.flatMap((run) => run.instances ?? []),
    silentFirstVisitMs: silentFirst.length ? spread(silentFirst) : null,
    hostileUploads: runs.flatMap((run) => (run.hostileUploads ? [run.hostileUploads] : [])),
  };
}

const thousands = (value: number) => Math.round(value).toLocaleString("en-US");
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));

function withSpread(value: Spread, format: (value: number) => string, runs: number): string {
  return runs > 1 ? `${format(value.median)} (${format(value.min)}–${format(value.max)})` : format(value.median);
}

/**
 * The surplus's range, ✓ when every run's is within what wrk may have left in flight. Scans the
 * buffer dropped at its bound (counted and logged: what it is built to do when the database falls
 * behind) are named; the surplus counts them, so a ✓ means every redirect's scan is accounted for.
 */
function scanCell(scenario: ScenarioSummary, inFlightAtMost: number): string {
  if (!scenario.scanSurplus) return "—";
  const within = scenario.scanSurplus.min >= 0 && scenario.scanSurplus.max <= inFlightAtMost;
  const drops = scenario.droppedScans
    ? ` (counting up to ${thousands(scenario.droppedScans)} dropped at the buffer's bound and logged)`
    : "";
  return `${signed(scenario.scanSurplus.min)}…${signed(scenario.scanSurplus.max)}${drops} ${within ? "✓" : "✗"}`;
}

/** +49, 0 as +0, −29,999 with a real minus sign. */
const signed = (value: number) => (value < 0 ? `−${thousands(-value)}` : `+${thousands(value)}`);

export function markdownTable(summary: Summary): string {
  const { runs, connections, slices } = summary;
  const lines = [
    "| scenario | requests/s | vs reference | p50 ms | p99 ms | CPU µs/request | unexpected answers " +
      "| scans − redirects | target (runs met) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const scenario of summary.scenarios) {
    const target = scenario.target ? `${scenario.target} (${scenario.targetMetRuns}/${runs})` : "—";
    lines.push(
      `| ${scenario.scenario} | ${withSpread(scenario.requestsPerSecond, thousands, runs)} | ` +
        `${scenario.ratio ? withSpread(scenario.ratio, (value) => value.toFixed(2), runs) : "1.00"} | ` +
        `${withSpread(scenario.p50Ms, ms, runs)} | ${withSpread(scenario.p99Ms, ms, runs)} | ` +
        `${scenario.cpuMicrosPerRequest ? withSpread(scenario.cpuMicrosPerRequest, (value) => value.toFixed(1), runs) : "—"} ` +
        `| ${scenario.unexpected} | ${scanCell(scenario, connections * slices)} | ${target} |`,
    );
  }
  const notes: string[] = [];
  if (summary.memoryRatio)
    notes.push(
      `Resident memory after the sustained run ÷ after warm-up: ` +
        `${withSpread(summary.memoryRatio, (value) => `${value.toFixed(2)}×`, runs)}.`,
    );
  if (summary.silentFirstVisitMs)
    notes.push(
      `A quarantined link whose DNS never answers: its first ${connections} visits, sent at once, took ` +
        `at most ${withSpread(summary.silentFirstVisitMs, ms, runs)} ms: the link's first read from the ` +
        `database, then its first check, which a visit waits for at most SAFETY_CHECK_DEADLINE_MS (250 ` +
        `by default); its row above measures the visits after them.`,
    );
  if (summary.hostileUploads.length)
    notes.push(
      `Hostile logos: during the slices of "the same, while … hostile logos" its clients made ` +
        summary.hostileUploads
          .map(
            ({ uploads, byStatus }) =>
              `${thousands(uploads)} uploads (${Object.entries(byStatus)
                .map(([status, count]) => `${thousands(count)} × ${status}`)
                .join(", ")})`,
          )
          .join("; ") +
        `; a 2xx would be a stored logo.`,
    );
  if (summary.exact)
    notes.push(
      `Exact count: ${summary.exact.visits} visits over ${connections} connections, every answer read: ` +
        (summary.exact.allExact
          ? `scans recorded = redirects answered = ${summary.exact.visits} in every run ✓.`
          : "scans recorded ≠ redirects answered ✗ (see the JSON)."),
    );
  for (const phase of summary.instances)
    notes.push(
      `Exact across ${phase.instances} instances on one PostgreSQL${phase.nats ? " and one NATS JetStream stream" : ""}: ` +
        `${phase.visits} visits, ${phase.redirects} redirects, ${phase.scans} scans recorded ` +
        (phase.scans === phase.redirects && phase.redirects === phase.visits ? "✓." : "✗."),
    );
  return `${lines.join("\n")}\n${notes.length ? `\n${notes.join("\n")}\n` : ""}`;
}
