import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getDomain, removeDomain } from "@/lib/domains/operations";
import * as domains from "@/lib/domains/service";
import { json } from "@/lib/http/respond";

export const GET = apiRoute(getDomain, async ({ principal, params }) => json(await domains.getDomain(principal, params.id)));

export const DELETE = apiRoute(removeDomain, async ({ principal, params }) => {
  await domains.removeDomain(principal, params.id);
  return new Response(null, { status: 204 });
});

export const { POST, PUT, PATCH, OPTIONS } = otherMethods({ GET, DELETE });
