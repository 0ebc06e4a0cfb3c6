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
    root_destination_blocked: z
      .string()
      .nullable()
      .meta({
        description:
          "why root_destination is no longer served: the background re-check found it harmful, and visits of the root get a " +
          "warning page instead of the redirect until it is set again (PATCH, through the same checks); null: served",
      }),
    not_found_destination_blocked: z
      .string()
      .nullable()
      .meta({
        description:
          "why not_found_destination is no longer served (as root_destination_blocked); visits of a code the domain does not " +
          "have get the warning page, existing codes resolve as ever; null: served",
      }),
    registration_expires_at: epochMilliseconds.nullable().meta({
      description:
        "epoch milliseconds: when the registration of the hostname's registrable domain (example.com for go.example.com) " +
        "lapses, as its registry's RDAP server said at the last look (at most daily, verified domains only); null: not known. " +
        "Owners and admins are e-mailed 30, 7 and 1 days before, and domain.expiring fires; links keep resolving either way",
    }),
    certificate_expires_at: epochMilliseconds.nullable().meta({
      description:
        "epoch milliseconds: when the HTTPS certificate visitors of the hostname get lapses, read by a TLS handshake " +
        "(daily, hourly in its last 30 days; verified domains only); null: not known. Warned like registration_expires_at",
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

export const domainExpiryTotalsSchema = z
  .object({
    ran: z.boolean().meta({ description: "false when another instance holds the job's lease" }),
    looked_up: z
      .number()
      .int()
      .meta({ description: "verified domains whose registration (RDAP) or certificate (a TLS handshake) was read" }),
    warnings: z.number().int().meta({ description: "warnings decided by this run (30, 7 or 1 days before a lapse), each once" }),
    emails: z.number().int().meta({ description: "warnings e-mailed to the workspace's owners and admins by this run" }),
  })
  .meta({ id: "DomainExpiryTotals" });

export type AddDomainInput = z.infer<typeof addDomainBody>;
export type UpdateDomainInput = z.infer<typeof updateDomainBody>;
export type DomainView = z.infer<typeof domainSchema>;
