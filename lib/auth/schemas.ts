import { epochMilliseconds } from "@/lib/http/schemas";
import { z } from "zod";

export const claimResponseSchema = z
  .object({
    api_key: z.string().meta({ description: "the raw key, shown once; the service stores only its hash" }),
  })
  .meta({ id: "ClaimResponse" });

export const revokeResponseSchema = z.object({ revoked_at: epochMilliseconds }).meta({ id: "RevokeResponse" });
