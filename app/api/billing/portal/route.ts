import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { openBillingPortal } from "@/lib/billing/operations";
import { openPortal } from "@/lib/billing/service";

export const POST = apiRoute(openBillingPortal, async ({ principal, reply }) => reply(200, await openPortal(principal)));

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
