import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { setEscrowPublication } from "@/lib/escrow/operations";
import { setDomainPublication } from "@/lib/escrow/service";

export const PUT = apiRoute(setEscrowPublication, async ({ principal, params, body, reply }) =>
  reply(200, await setDomainPublication(principal, params.id, body.published)),
);

export const { GET, POST, PATCH, DELETE, OPTIONS } = otherMethods({ PUT });
