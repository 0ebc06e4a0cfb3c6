import { z } from "zod";

export const recheckTotalsSchema = z
  .object({
    checked: z.number().int().min(0).meta({ description: "links given a live safety check in this run" }),
    released: z.number().int().min(0).meta({ description: "quarantined links this run released to active" }),
    blocked: z.number().int().min(0).meta({ description: "links this run moved to abuse" }),
    domains_checked: z
      .number()
      .int()
      .min(0)
      .meta({ description: "verified domains whose root_destination and not_found_destination this run checked" }),
    domain_destinations_blocked: z
      .number()
      .int()
      .min(0)
      .meta({ description: "domain destinations this run stopped serving (a safety check found them harmful)" }),
  })
  .meta({ id: "RecheckResult" });

export type RecheckTotals = z.infer<typeof recheckTotalsSchema>;
