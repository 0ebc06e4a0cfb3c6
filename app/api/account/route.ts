import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as billingOperations from "@/lib/billing/operations";
import { describeAccount } from "@/lib/billing/service";

export const GET = apiRoute(billingOperations.describeAccount, async ({ principal, reply }) =>
  reply(200, await describeAccount(principal)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
