import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getPublishedDomainEscrow } from "@/lib/escrow/operations";
import { publishedDomainEscrow } from "@/lib/escrow/service";
import { hashedClientNetwork } from "@/lib/http/client-address";

export const GET = apiRoute(getPublishedDomainEscrow, async ({ request, params }) =>
  publishedDomainEscrow(params.id, hashedClientNetwork(request)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
