import { z } from "zod";

export const COMPONENT_STATES = ["ok", "unavailable", "not configured"] as const;

const componentSchema = z.object({
  status: z.enum(COMPONENT_STATES),
  reason: z.string().optional().describe("Why the component is unavailable, in words that carry no secret."),
});

export const healthSchema = z.object({
  status: z
    .enum(["ok", "degraded", "unavailable"])
    .describe(
      "ok: everything configured answers; degraded: this instance serves, with something shared " +
        "missing (limits kept per instance, or scans written to PostgreSQL directly instead of through " +
        "NATS); unavailable: it cannot serve (503).",
    ),
  database: componentSchema,
  replica: componentSchema,
  redis: componentSchema.extend({
    store: z.enum(["upstash", "redis"]).optional().describe("Upstash over its REST API, or Redis over TCP (REDIS_URL)."),
  }),
  nats: componentSchema,
});

export type Health = z.infer<typeof healthSchema>;
export type Component = z.infer<typeof componentSchema>;
