import { z } from "zod";
import { linkSchema } from "@/lib/links/schemas";

export const paidLinkSchema = linkSchema
  .extend({
    receipt: z.string().meta({ description: "the payment reference (settlement transaction hash), echoed back" }),
    api_key: z.string().optional().meta({ description: "only on the first paid link of a new machine account; shown once" }),
    notice: z.string().optional().meta({ description: "present when the link differs from the request: the custom slug was taken while the payment settled, so an allocated slug was used" }),
  })
  .meta({ id: "PaidLink" });

export type PaidLink = z.infer<typeof paidLinkSchema>;
