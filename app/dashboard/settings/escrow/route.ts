import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getEscrow } from "@/lib/escrow/operations";
import { workspaceEscrow } from "@/lib/escrow/service";
import { hashedClientNetwork } from "@/lib/http/client-address";

/** GET /api/escrow for the signed-in dashboard: the same signed snapshot of every code, as a download. */
export const GET = apiRoute({ ...getEscrow, auth: "dashboard" }, async ({ request, principal }) =>
  workspaceEscrow(principal, hashedClientNetwork(request)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
