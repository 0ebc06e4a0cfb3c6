import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { runDomainExpiryChecks } from "@/lib/domains/expiry";
import { checkDomainExpiry } from "@/lib/domains/operations";

/** Vercel Cron's call to the expiry check of custom domains; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(checkDomainExpiry, async ({ reply }) => reply(200, await runDomainExpiryChecks()));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
