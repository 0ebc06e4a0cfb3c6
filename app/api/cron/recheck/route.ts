import { constantTimeEqual } from "@/lib/auth/api-keys";
import { config } from "@/lib/config";
import { ApiError, unauthenticated } from "@/lib/http/errors";
import { json } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";
import { recheckLinks } from "@/lib/resolution/recheck";

const QUARANTINED_PER_RUN = 200;
const ACTIVE_SAMPLE_PER_RUN = 20;

/** Vercel Cron's call to the background re-check; it sends `Authorization: Bearer <CRON_SECRET>`. */
export function GET(request: Request): Promise<Response> {
  return handleErrors(async () => {
    requireCronSecret(request);
    return json(await recheckLinks({ quarantinedLimit: QUARANTINED_PER_RUN, activeSample: ACTIVE_SAMPLE_PER_RUN }));
  });
}

function requireCronSecret(request: Request): void {
  const secret = config().CRON_SECRET;
  if (!secret) throw new ApiError(503, "The re-check job is not configured on this deployment: CRON_SECRET is not set.");
  if (!constantTimeEqual(request.headers.get("authorization") ?? "", `Bearer ${secret}`)) {
    throw unauthenticated("Send the deployment's cron secret as Authorization: Bearer <CRON_SECRET>.");
  }
}
