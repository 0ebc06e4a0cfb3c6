import { apiRoute } from "@/lib/api/route";
import { callMcp } from "@/lib/mcp/operations";
import { serveMcp } from "@/lib/mcp/server";

export const POST = apiRoute(callMcp, ({ request, principal, body }) => serveMcp(request, principal, body));
