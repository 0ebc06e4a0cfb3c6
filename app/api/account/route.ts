import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { describeAccount as describeAccountOperation } from "@/lib/billing/operations";
import { describeAccount } from "@/lib/billing/service";
import { json } from "@/lib/http/respond";

export const GET = apiRoute(describeAccountOperation, async ({ principal }) => json(await describeAccount(principal)));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
