import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";
import { claimKey, revokeKey } from "@/lib/auth/claim";

export const POST = apiRoute({ write: true }, async ({ principal }) =>
  json({ api_key: await claimKey(principal) }),
);

export const DELETE = apiRoute({ write: true }, async ({ principal }) => json(await revokeKey(principal)));
