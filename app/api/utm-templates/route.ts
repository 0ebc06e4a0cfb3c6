import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as utmOperations from "@/lib/utm/operations";
import { createUtmTemplate, listUtmTemplates } from "@/lib/utm/service";

export const GET = apiRoute(utmOperations.listUtmTemplates, async ({ principal, reply }) =>
  reply(200, await listUtmTemplates(principal)),
);

export const POST = apiRoute(utmOperations.createUtmTemplate, async ({ principal, body, reply }) =>
  reply(201, await createUtmTemplate(principal, body)),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
