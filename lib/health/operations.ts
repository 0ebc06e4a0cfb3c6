import { defineOperation, failure, ok } from "@/lib/http/operation";
import { healthSchema, healthStatusSchema } from "./schemas";

export const getHealth = defineOperation({
  method: "get",
  path: "/api/health",
  auth: "public_or_operator",
  operationId: "getHealth",
  summary: "Whether this instance can serve",
  description:
    "For a load balancer or an operator: asks the database and the shared store (Upstash or Redis) " +
    "for an answer within two seconds each, at most once a second for every caller (a probe within a " +
    "second of the last check gets its answer). 503 when this instance cannot serve; a shared store " +
    "that fails leaves it serving (degraded), with limits kept per instance until the store answers " +
    "again. Anyone is told the status alone (`HealthStatus`); the operator, with Bearer OPERATOR_TOKEN, " +
    "each component's state and why one is unavailable, never a secret (`Health`).",
  tag: "Meta",
  responses: {
    200: ok("This instance can serve: the status, and for the operator each component.", [healthStatusSchema, healthSchema]),
    503: failure(
      "This instance cannot serve: its database does not answer. Besides `error`, the body has the fields of a 200 " +
        "(`HealthStatus`, or `Health` for the operator).",
    ),
  },
});
