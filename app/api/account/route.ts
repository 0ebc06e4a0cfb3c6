import { apiRoute } from "@/lib/api/route";
import { describeAccount as describeAccountOperation } from "@/lib/billing/operations";
import { describeAccount } from "@/lib/billing/service";
import { json } from "@/lib/http/respond";

export const GET = apiRoute(describeAccountOperation, async ({ principal }) => json(await describeAccount(principal)));
