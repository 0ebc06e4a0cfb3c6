import { constantTimeEqual } from "@/lib/auth/api-keys";
import { config } from "@/lib/config";
import { readJsonBody, validate } from "@/lib/http/body";
import { ApiError, notFound, unauthenticated } from "@/lib/http/errors";
import { json } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";
import { changeLinkStatus, linkStatusChangeBody } from "@/lib/resolution/abuse-reports";

type Context = { params: Promise<{ id: string }> };

/** The operator moves a link between statuses: into abuse with a reason, and back out after review. */
export function PUT(request: Request, context: Context): Promise<Response> {
  return handleErrors(async () => {
    requireOperatorToken(request);
    const change = validate(linkStatusChangeBody, await readJsonBody(request), "body");
    const link = await changeLinkStatus((await context.params).id, change);
    if (!link) throw notFound("No link with this id exists.");
    return json({ id: link.id, status: link.status, abuse_reason: link.abuseReason });
  });
}

function requireOperatorToken(request: Request): void {
  const token = config().OPERATOR_TOKEN;
  if (!token) throw new ApiError(503, "Operator actions are not configured on this deployment: OPERATOR_TOKEN is not set.");
  if (!constantTimeEqual(request.headers.get("authorization") ?? "", `Bearer ${token}`)) {
    throw unauthenticated("Send the operator token as Authorization: Bearer <OPERATOR_TOKEN>.");
  }
}
