import { defineOperation, failure, ok } from "@/lib/http/operation";
import { healthSchema } from "./schemas";

export const getHealth = defineOperation({
  method: "get",
  path: "/api/health",
  auth: "public",
  operationId: "getHealth",
  summary: "Whether this instance can serve",
  description:
    "For a load balancer or an operator: asks the database and the shared store (Upstash or Redis) " +
    "for an answer within two seconds each and says what each answered, never a secret. 503 when " +
    "this instance cannot serve; a shared store that fails leaves it serving (degraded), with limits " +
    "kept per instance until the store answers again.",
  tag: "Meta",
  responses: {
    200: ok("This instance can serve.", healthSchema),
    503: failure("This instance cannot serve: its database does not answer. Besides `error`, the body has the fields of a 200."),
  },
});
