import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { rotateWebhookSecret } from "@/lib/webhooks/operations";
import { rotateSecret } from "@/lib/webhooks/service";

export const POST = apiRoute(rotateWebhookSecret, async ({ principal, params }) =>
  json(await rotateSecret(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
