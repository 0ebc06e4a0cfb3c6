import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import {
  createUtmTemplate as createUtmTemplateOperation,
  listUtmTemplates as listUtmTemplatesOperation,
} from "@/lib/utm/operations";
import { createUtmTemplate, listUtmTemplates } from "@/lib/utm/service";

export const GET = apiRoute(listUtmTemplatesOperation, async ({ principal, reply }) =>
  reply(200, await listUtmTemplates(principal)),
);

export const POST = apiRoute(createUtmTemplateOperation, async ({ principal, body, reply }) =>
  reply(201, await createUtmTemplate(principal, body)),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
