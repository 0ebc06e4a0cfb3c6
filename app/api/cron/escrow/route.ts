import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { writeDailySnapshot } from "@/lib/escrow/archive";
import { writeEscrowSnapshot } from "@/lib/escrow/operations";

/** Vercel Cron's call to the daily escrow snapshot; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(writeEscrowSnapshot, async ({ reply }) => reply(200, await writeDailySnapshot()));

/** A snapshot reads every code of the service once: more than Vercel's default allows. */
export const maxDuration = 300;

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
