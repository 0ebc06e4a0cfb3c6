import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { runDomainChecks } from "@/lib/domains/job";
import { checkDomains } from "@/lib/domains/operations";

/** Vercel Cron's call to the background domain check; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(checkDomains, async ({ reply }) => reply(200, await runDomainChecks()));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
