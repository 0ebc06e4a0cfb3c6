import { forgetHealthCheck } from "@/lib/health/service";
import { call } from "./api";

/** The OPERATOR_TOKEN a suite sets (before its first check) to be told each component by askHealth({ operator: true }). */
export const HEALTH_OPERATOR_TOKEN = "operator-token-for-the-health-checks-0123456789";

/**
 * GET /api/health, as the operator (who is told each component) when `operator`. A check of its
 * own, unless `reusing`: within a second of the last check the route answers what that one found,
 * and a test that changed what a check sees wants it seen.
 */
export function askHealth({ operator = false, reusing = false }: { operator?: boolean; reusing?: boolean } = {}) {
  if (!reusing) forgetHealthCheck();
  return call("GET", "/api/health", operator ? { token: HEALTH_OPERATOR_TOKEN } : {});
}
