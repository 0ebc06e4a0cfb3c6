import { repeat, type Schedule } from "@/lib/schedule";
import { applyScanRetention } from "./service";

/** Hourly: raw events leave within an hour of their retention ending. */
const INTERVAL_MS = 60 * 60 * 1000;
/** The first pass, soon after start but off the start's own work: a server restarted more often than hourly still prunes. */
const FIRST_PASS_MS = 60 * 1000;

/** The self-hosted server's schedule for the scan retention (Vercel Cron calls GET /api/cron/scan-retention instead). */
export function startScanRetentionTimer(): Schedule {
  return repeat("pruning old scan events", applyScanRetention, INTERVAL_MS, FIRST_PASS_MS);
}
