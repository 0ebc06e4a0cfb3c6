import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { log } from "@/lib/log";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { escrowLines } from "./service";

const FILE = /^permalink-escrow-(\d{4}-\d\d-\d\d)\.jsonl$/;

/** Where the daily snapshots go: ESCROW_DIRECTORY, else DATA_DIR/escrow. */
export function escrowDirectory(): string {
  const { ESCROW_DIRECTORY, DATA_DIR } = config();
  return ESCROW_DIRECTORY ?? join(DATA_DIR, "escrow");
}

/**
 * Today's snapshot of every code of the service, written once a UTC day: streamed to a file of
 * its own and renamed into place only when whole, so the directory never holds a half-written
 * snapshot; then only the newest ESCROW_KEEP are kept.
 */
export async function writeDailySnapshot(): Promise<{ written: string | null; codes: number; kept: number; removed: number }> {
  const directory = escrowDirectory();
  await mkdir(directory, { recursive: true });
  const day = new Date(clock().now()).toISOString().slice(0, 10);
  const name = `permalink-escrow-${day}.jsonl`;
  const target = join(directory, name);
  let written: string | null = null;
  let codes = 0;
  if (!(await exists(target))) {
    const partial = join(directory, `.${name}.${randomBytes(6).toString("hex")}.partial`);
    try {
      await pipeline(
        Readable.from(counted(escrowLines({ kind: "service" }, "service"), (n) => (codes = n))),
        createWriteStream(partial),
      );
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    written = target;
    log().info({ file: target, codes }, "escrow snapshot written");
  }
  const snapshots = (await readdir(/*turbopackIgnore: true*/ directory)).filter((file) => FILE.test(file)).sort();
  const stale = snapshots.slice(0, Math.max(0, snapshots.length - config().ESCROW_KEEP));
  await Promise.all(stale.map((file) => rm(join(directory, file), { force: true })));
  return { written, codes, kept: snapshots.length - stale.length, removed: stale.length };
}

/** The lines, passed on, counting the code lines (all but the header and the signature line). */
async function* counted(lines: AsyncGenerator<string>, count: (codes: number) => void): AsyncGenerator<string> {
  let newlines = 0;
  for await (const text of lines) {
    for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) newlines++;
    yield text;
  }
  count(Math.max(0, newlines - 2));
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
