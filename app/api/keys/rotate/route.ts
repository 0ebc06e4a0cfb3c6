import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { rotateKey } from "@/lib/workspaces/api-key";
import { rotateApiKey } from "@/lib/workspaces/operations";

export const POST = apiRoute(rotateApiKey, async ({ principal }) => json({ api_key: await rotateKey(principal) }));

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
