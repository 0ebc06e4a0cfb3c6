import { rotateKey } from "@/lib/auth/claim";
import { json } from "@/lib/http/respond";
import { apiRoute } from "@/lib/http/route";

export const POST = apiRoute({ write: true }, async ({ principal }) => json({ api_key: await rotateKey(principal) }));
