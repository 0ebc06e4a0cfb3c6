import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { openBillingPortal } from "@/lib/billing/operations";
import { openPortal } from "@/lib/billing/service";
import { json } from "@/lib/http/respond";

export const POST = apiRoute(openBillingPortal, async ({ principal }) => json(await openPortal(principal)));

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
