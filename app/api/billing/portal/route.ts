import { openPortal } from "@/lib/billing/service";
import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";

export const POST = apiRoute({ write: true }, async ({ principal }) => json(await openPortal(principal)));
