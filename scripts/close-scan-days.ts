import { closeScanDaysThroughToday } from "@/lib/analytics/service";
import { closePool } from "@/lib/db/pool";
import { boot } from "@/server/boot";

/** `npm run close-scan-days`: closes the scan rollups of every day through today (docs/adr/0009-closed-days.md). */
const { embedded } = await boot();
const { closed, locked } = await closeScanDaysThroughToday();
await closePool();
await embedded?.close();
// A command's own output for the person who ran it, not a log line.
if (!locked) {
  process.stderr.write("The scans being written kept the day rollups' lock for 3 s, so nothing was closed; run it again.\n");
  process.exit(1);
}
const days =
  closed.length === 0 ? "No day had scans waiting" : `Closed ${closed.length} day(s), ${closed[0]} to ${closed.at(-1)}`;
process.stdout.write(`${days}; until tomorrow every scan goes to its day and month rows as it is written.\n`);
process.exit(0);
