import { config } from "@/lib/config";
import { defineJob } from "@/lib/schedule";
import { writeDailySnapshot } from "./archive";
import { writeEscrowSnapshot } from "./operations";

/** The daily signed snapshot of every code, written to ESCROW_DIRECTORY (a pass finds today's there and does nothing). */
export const escrowSnapshotJob = defineJob({
  name: "escrow snapshot",
  operation: writeEscrowSnapshot,
  cron: "23 3 * * *",
  intervalMs: () => config().ESCROW_INTERVAL_SECONDS * 1000,
  firstAfterMs: 60_000,
  run: writeDailySnapshot,
});
