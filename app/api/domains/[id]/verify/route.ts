import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { verifyDomain } from "@/lib/domains/operations";
import * as domains from "@/lib/domains/service";

export const POST = apiRoute(verifyDomain, async ({ principal, params, reply }) =>
  reply(200, await domains.verifyDomain(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
