import { epochMilliseconds } from "@/lib/http/schemas";
import { z } from "zod";

export const recoveryNonceSchema = z
  .object({
    nonce: z.string().meta({ description: "single use; put it in the message's Nonce field" }),
    expires_at: epochMilliseconds.meta({ description: "epoch milliseconds; after this the nonce is refused (410)" }),
    domain: z.string().meta({ description: "the message's domain: this service's host" }),
    uri: z.string().meta({ description: "the message's URI: this service's origin (any URI on it is accepted)" }),
    chain_id: z.number().int().meta({ description: "the message's Chain ID: the chain machine accounts pay on" }),
    version: z.literal("1").meta({ description: "the message's Version" }),
  })
  .meta({ id: "RecoveryNonce" });

export type RecoveryNonce = z.infer<typeof recoveryNonceSchema>;

export const MAX_SIWE_MESSAGE_LENGTH = 4096;

export const recoverKeyBody = z
  .strictObject({
    message: z.string().min(1).max(MAX_SIWE_MESSAGE_LENGTH).meta({ description: "the EIP-4361 message, exactly as signed" }),
    signature: z
      .string()
      .regex(/^0x(?:[0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/, "must be a 64- or 65-byte hex signature (0x…)")
      .meta({ description: "the wallet's personal_sign (EIP-191) signature of the message" }),
  })
  .meta({ id: "RecoverKeyRequest" });

export type RecoverKeyInput = z.infer<typeof recoverKeyBody>;
