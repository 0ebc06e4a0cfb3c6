import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { addDomain, listDomains } from "@/lib/domains/operations";
import * as domains from "@/lib/domains/service";

export const POST = apiRoute(addDomain, async ({ principal, body, reply }) =>
  reply(201, await domains.addDomain(principal, body)),
);

export const GET = apiRoute(listDomains, async ({ principal, reply }) => reply(200, await domains.listDomains(principal)));

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
