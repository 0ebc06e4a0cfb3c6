import { checkoutBody } from "@/lib/billing/schemas";
import { startCheckout } from "@/lib/billing/service";
import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";

export const POST = apiRoute({ write: true, body: checkoutBody }, async ({ principal, body }) => json(await startCheckout(principal, body)));
