import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { verifyDomain } from "@/lib/domains/operations";
import * as domains from "@/lib/domains/service";
import { json } from "@/lib/http/respond";

export const POST = apiRoute(verifyDomain, async ({ principal, params }) =>
  json(await domains.verifyDomain(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
