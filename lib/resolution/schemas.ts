import { z } from "zod";

export const recheckTotalsSchema = z
  .object({
    checked: z.number().int().min(0).meta({ description: "links given a live safety check in this run" }),
    released: z.number().int().min(0).meta({ description: "quarantined links this run released to active" }),
    blocked: z.number().int().min(0).meta({ description: "links this run moved to abuse" }),
  })
  .meta({ id: "RecheckResult" });

export type RecheckTotals = z.infer<typeof recheckTotalsSchema>;
