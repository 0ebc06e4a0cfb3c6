import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";

/**
 * `tsx bench/profile-top.ts PROFILE.cpuprofile [--last 8] [--top 25]`: the functions with the most
 * self time in a V8 CPU profile (from `node --cpu-prof`), optionally only over its last N seconds
 * (the load, without start-up), with their share of all samples and of the non-idle ones.
 */
type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { last: { type: "string" }, top: { type: "string", default: "25" }, "by-origin": { type: "boolean", default: false } },
});

/** Where a function comes from: a package, Node's own code, the app's source, or V8 (GC, program, natives). */
function origin(name: string): string {
  const location = name.slice(name.lastIndexOf(" ") + 1);
  if (name.startsWith("(garbage collector)")) return "garbage collector";
  if (location.startsWith("node:")) return "node: internals";
  if (/^lib\/|^scripts\/|^proxy\.ts|^bench\//.test(location)) return location.split(":")[0]!;
  const scoped = location.match(/^(@[^/]+\/[^/]+|[^/:]+)\//);
  return scoped ? scoped[1]! : "V8 and natives (syscalls, regexps, program)";
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url
    .replace(/^file:\/\//, "")
    .replace(/^.*\/node_modules\//, "")
    .replace(/^.*\/wt-[^/]+\//, "");
  return `${functionName || "(anonymous)"} ${file ? `${file}:${lineNumber + 1}` : ""}`.trim();
}

async function main(): Promise<void> {
  const profile = JSON.parse(await readFile(positionals[0]!, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const from = values.last ? profile.endTime - Number(values.last) * 1e6 : profile.startTime;
  const selfTime = new Map<string, number>();
  let time = profile.startTime;
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    time += profile.timeDeltas[index]!;
    if (time < from) return;
    const delta = profile.timeDeltas[index + 1] ?? 0;
    const name = label(byId.get(id)!);
    total += delta;
    if (name.startsWith("(idle)")) idle += delta;
    selfTime.set(name, (selfTime.get(name) ?? 0) + delta);
  });
  const busy = total - idle;
  console.log(`${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (${((busy / total) * 100).toFixed(0)}%)`);
  console.log("| self ms | % of busy | function |\n|---:|---:|---|");
  const rows = values["by-origin"] ? groupByOrigin(selfTime) : selfTime;
  const top = [...rows]
    .filter(([name]) => !name.startsWith("(idle)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(values.top));
  for (const [name, micros] of top)
    console.log(`| ${(micros / 1000).toFixed(0)} | ${((micros / busy) * 100).toFixed(1)} | \`${name}\` |`);
}

function groupByOrigin(selfTime: Map<string, number>): Map<string, number> {
  const grouped = new Map<string, number>();
  for (const [name, micros] of selfTime)
    if (!name.startsWith("(idle)")) grouped.set(origin(name), (grouped.get(origin(name)) ?? 0) + micros);
  return grouped;
}

await main();
