import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { callMcp } from "@/lib/mcp/operations";
import { serveMcp } from "@/lib/mcp/server";

export const POST = apiRoute(callMcp, ({ request, principal, body }) => serveMcp(request, principal, body));

// Stateless: no server-to-client stream (GET) and no session to end (DELETE).
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
