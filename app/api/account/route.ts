import { describeAccount } from "@/lib/billing/service";
import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";

export const GET = apiRoute({}, async ({ principal }) => json(await describeAccount(principal)));
