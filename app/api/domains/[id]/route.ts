import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getDomain, removeDomain, updateDomain } from "@/lib/domains/operations";
import * as domains from "@/lib/domains/service";

export const GET = apiRoute(getDomain, async ({ principal, params, reply }) =>
  reply(200, await domains.getDomain(principal, params.id)),
);

export const PATCH = apiRoute(updateDomain, async ({ principal, params, body, reply }) =>
  reply(200, await domains.updateDomain(principal, params.id, body)),
);

export const DELETE = apiRoute(removeDomain, async ({ principal, params, reply }) => {
  await domains.removeDomain(principal, params.id);
  return reply(204);
});

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE });
