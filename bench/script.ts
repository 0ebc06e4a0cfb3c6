import { resetConfig } from "@/lib/config";
import { readFile, writeFile } from "node:fs/promises";

const BENCH_README = "bench/README.md";

/** Runs a bench script's `main` with the configuration read afresh, and exits with its outcome. */
export function runBenchScript(main: () => Promise<void>): void {
  resetConfig();
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/** Replaces what bench/README.md holds between `<!-- NAME:start -->` and `<!-- NAME:end -->` with `text`. */
export async function writeReadmeBlock(name: string, text: string): Promise<void> {
  const readme = await readFile(BENCH_README, "utf8");
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from === -1 || to === -1) throw new Error(`${BENCH_README} has no ${start} … ${end} block for the table.`);
  await writeFile(BENCH_README, `${readme.slice(0, from + start.length)}\n${text}\n${readme.slice(to)}`);
}
