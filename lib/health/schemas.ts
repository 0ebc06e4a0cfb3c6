import { z } from "zod";

export const COMPONENT_STATES = ["ok", "unavailable", "not configured"] as const;

const componentSchema = z.object({
  status: z.enum(COMPONENT_STATES),
  reason: z.string().optional().describe("Why the component is unavailable, in words that carry no secret."),
});

/** What anyone is told: the status alone. */
export const healthStatusSchema = z
  .object({
    status: z
      .enum(["ok", "degraded", "unavailable"])
      .describe(
        "ok: everything configured answers; degraded: this instance serves, with something shared " +
          "missing (limits kept per instance, or scans written to PostgreSQL directly instead of through " +
          "NATS); unavailable: it cannot serve (503).",
      ),
  })
  .meta({ id: "HealthStatus", description: "The answer to a caller without the operator token: the status alone." });

/** What the operator is told: each component's state, and why one is unavailable. */
export const healthSchema = healthStatusSchema
  .extend({
    database: componentSchema,
    replica: componentSchema,
    redis: componentSchema.extend({
      store: z.enum(["upstash", "redis"]).optional().describe("Upstash over its REST API, or Redis over TCP (REDIS_URL)."),
    }),
    nats: componentSchema,
  })
  .meta({ id: "Health", description: "The answer to the operator (Bearer OPERATOR_TOKEN): the status and each component's." });

export type Health = z.infer<typeof healthSchema>;
export type HealthStatus = z.infer<typeof healthStatusSchema>;
export type Component = z.infer<typeof componentSchema>;
