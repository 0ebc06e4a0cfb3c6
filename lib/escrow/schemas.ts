import { z } from "zod";

export const escrowKeysSchema = z
  .object({
    format: z.literal("permalink-escrow"),
    version: z.literal(1),
    service: z.url(),
    keys: z.array(
      z
        .object({
          id: z.string().meta({ description: "the first 16 bytes of SHA-256 of the raw public key, base64url" }),
          algorithm: z.literal("Ed25519"),
          public_key: z.string().meta({ description: "the raw 32-byte public key, base64url" }),
          created_at: z.iso.datetime(),
          retired_at: z.iso.datetime().nullable().meta({ description: "null for the current key" }),
        })
        .meta({ id: "EscrowKey" }),
    ),
  })
  .meta({ id: "EscrowKeys" });

export const escrowPublicationBody = z
  .strictObject({ published: z.boolean().meta({ description: "true publishes the domain's snapshot at a public address" }) })
  .meta({ id: "EscrowPublicationInput" });

export const escrowPublicationSchema = z
  .object({
    domain_id: z.string(),
    published: z.boolean(),
    published_at: z.iso.datetime().nullable(),
    url: z.url().nullable().meta({ description: "where anyone may download the domain's signed snapshot, while published" }),
    notice: z.string().meta({
      description:
        "what publishing means: the file is public, with every code's destination, rules and scheduled changes; " +
        "password-protected codes are listed without theirs",
    }),
  })
  .meta({ id: "EscrowPublication" });

export const escrowRunSchema = z
  .object({
    written: z.string().nullable().meta({ description: "the file written by this pass; null when today's was already there" }),
    codes: z.number().int(),
    kept: z.number().int().meta({ description: "snapshots now in the directory" }),
    removed: z.number().int(),
  })
  .meta({ id: "EscrowRun" });
