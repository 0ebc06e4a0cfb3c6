import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as utmOperations from "@/lib/utm/operations";
import { deleteUtmTemplate } from "@/lib/utm/service";

export const DELETE = apiRoute(utmOperations.deleteUtmTemplate, async ({ principal, params, reply }) => {
  await deleteUtmTemplate(principal, params.id);
  return reply(204);
});

export const { GET, POST, PUT, PATCH, OPTIONS } = otherMethods({ DELETE });
