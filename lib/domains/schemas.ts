import { epochMilliseconds } from "@/lib/http/schemas";
import { z } from "zod";
import { CERT_STATUSES, HOSTNAME_STATUSES } from "./status";

export const addDomainBody = z
  .strictObject({
    hostname: z
      .string({ error: "must be a string" })
      .min(1, "must not be empty")
      .max(300, "must be at most 300 characters")
      .meta({ description: "the hostname to serve short links on; IDN allowed, stored as A-label", example: "go.example.com" }),
  })
  .meta({ id: "AddDomainRequest" });

/** A destination a domain sends visitors to: the same rules as a link's (lib/links/destination-gate.ts), null for our own page. */
const domainDestination = (description: string) =>
  z
    .string({ error: "must be a string" })
    .min(1, "must not be empty")
    .max(4096, "must be at most 4096 characters")
    .nullable()
    .optional()
    .meta({ description, example: "https://example.com/" });

export const updateDomainBody = z
  .strictObject({
    root_destination: domainDestination(
      "where a visit of the domain's root (https://go.example.com/) is sent; checked as a link's destination is; null: our plain page",
    ),
    not_found_destination: domainDestination(
      "where a visit of a code the domain does not have is sent, once a code typed in another case has been looked for; " +
        "null: our not-found page",
    ),
  })
  .meta({ id: "UpdateDomainRequest" });

export const tlsAskQuery = z.strictObject({
  domain: z
    .string()
    .min(1, "must not be empty")
    .max(300, "must be at most 300 characters")
    .meta({ description: "the hostname a certificate is wanted for" }),
});

export const tlsAskAnswerSchema = z.object({ hostname: z.string() }).meta({ id: "TlsAskAnswer" });

const dnsRecord = z.object({
  type: z.enum(["TXT", "CNAME", "A", "AAAA"]),
  name: z
    .string()
    .meta({ description: "the full record name; DNS panels that append the zone want the part before it (@ for the apex)" }),
  value: z.string(),
});

export const domainSchema = z
  .object({
    id: z.string(),
    hostname: z.string().meta({ description: "lower case, IDN as A-label" }),
    verified: z
      .boolean()
      .meta({ description: "ownership (TXT) and routing were proven; never taken back, so links on it keep resolving" }),
    cert_status: z.enum(CERT_STATUSES).meta({
      description:
        "pending (no certificate yet), on_demand (Caddy issues it during the first HTTPS request), " +
        "active (the TLS provider issued it), failed (a CAA record forbids our certificate authority, or " +
        "the provider refused the name)",
    }),
    hostname_status: z.enum(HOSTNAME_STATUSES).meta({
      description:
        "pending (not verified: records missing or wrong), active (verified, records right), " +
        "misconfigured (verified, records wrong at the last check: links keep resolving for requests " +
        "that reach us), taken (another workspace proved ownership first)",
    }),
    validation_errors: z.array(z.string()).meta({ description: "what is wrong, in sentences; empty when nothing is" }),
    created_at: epochMilliseconds,
    dns: z.array(dnsRecord).meta({
      description: "every record to create: the TXT ownership record while unverified, then the CNAME (or the apex's A and AAAA)",
    }),
    next: z.string().meta({ description: "one sentence: what to do now" }),
    root_destination: z.string().nullable().meta({
      description: "where a visit of the domain's root is sent (a redirect); null: our plain page",
    }),
    not_found_destination: z
      .string()
      .nullable()
      .meta({
        description:
          "where a visit of a code the domain does not have is sent (a redirect), never instead of an existing code; " +
          "null: our not-found page",
      }),
  })
  .meta({ id: "Domain" });

export const domainListSchema = z.object({ domains: z.array(domainSchema) }).meta({ id: "DomainList" });

export const domainCheckTotalsSchema = z
  .object({
    ran: z.boolean().meta({ description: "false when another instance holds the job's lease" }),
    checked: z.number().int(),
    verified: z.number().int().meta({ description: "domains verified by this run" }),
    failing: z.number().int().meta({ description: "domains whose records were wrong" }),
    notices: z
      .number()
      .int()
      .meta({ description: "verified domains whose DNS broke, their owners and admins e-mailed by this run (once per failure)" }),
  })
  .meta({ id: "DomainCheckTotals" });

export type AddDomainInput = z.infer<typeof addDomainBody>;
export type UpdateDomainInput = z.infer<typeof updateDomainBody>;
export type DomainView = z.infer<typeof domainSchema>;
