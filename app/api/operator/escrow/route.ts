import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getServiceEscrow } from "@/lib/escrow/operations";
import { serviceEscrow } from "@/lib/escrow/service";

/** The operator's escrow: every code of the service, signed. */
export const GET = apiRoute(getServiceEscrow, async () => serviceEscrow());

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
