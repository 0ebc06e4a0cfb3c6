import { constantTimeEqual } from "@/lib/auth/api-keys";
import { config } from "@/lib/config";
import { ApiError, unauthenticated } from "@/lib/http/errors";
import { json } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";
import { recheckLinks } from "@/lib/resolution/recheck";

/** Vercel Cron's call to the background re-check; it sends `Authorization: Bearer <CRON_SECRET>`. */
export function GET(request: Request): Promise<Response> {
  return handleErrors(async () => {
    requireCronSecret(request);
    return json(await recheckLinks());
  });
}

function requireCronSecret(request: Request): void {
  const secret = config().CRON_SECRET;
  if (!secret) throw new ApiError(503, "The re-check job is not configured on this deployment: CRON_SECRET is not set.");
  if (!constantTimeEqual(request.headers.get("authorization") ?? "", `Bearer ${secret}`)) {
    throw unauthenticated("Send the deployment's cron secret as Authorization: Bearer <CRON_SECRET>.");
  }
}
