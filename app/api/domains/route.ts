import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { addDomain, listDomains } from "@/lib/domains/operations";
import * as domains from "@/lib/domains/service";
import { json } from "@/lib/http/respond";

export const POST = apiRoute(addDomain, async ({ principal, body }) => json(await domains.addDomain(principal, body), 201));

export const GET = apiRoute(listDomains, async ({ principal }) => json(await domains.listDomains(principal)));

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
