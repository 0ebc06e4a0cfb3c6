import { z } from "zod";

export const errorSchema = z
  .object({
    error: z.string().meta({ description: "a sentence for a human; clients must not switch on it" }),
  })
  .meta({ id: "Error", description: "Every failure has this body, with a real HTTP status code." });

export const epochMilliseconds = z.number().int().meta({ description: "epoch milliseconds" });
