import { constantTimeEqual } from "@/lib/auth/api-keys";
import { config } from "@/lib/config";
import { ApiError, unauthenticated } from "@/lib/http/errors";

/** The operator routes (the review queue and status changes) need the deployment's OPERATOR_TOKEN. */
export function requireOperatorToken(request: Request): void {
  const token = config().OPERATOR_TOKEN;
  if (!token) throw new ApiError(503, "Operator actions are not configured on this deployment: OPERATOR_TOKEN is not set.");
  if (!constantTimeEqual(request.headers.get("authorization") ?? "", `Bearer ${token}`)) {
    throw unauthenticated("Send the operator token as Authorization: Bearer <OPERATOR_TOKEN>.");
  }
}
