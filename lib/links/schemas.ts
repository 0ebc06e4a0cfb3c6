import { isRecordId } from "@/lib/db/random";
import { nextPageCursor, pageCursor, storedText } from "@/lib/http/schemas";
import { tagName, tagNames } from "@/lib/tags/schemas";
import { z } from "zod";
import { PASSWORD_MAX, PASSWORD_MIN } from "./password";
import { PREVIEW_DESCRIPTION_MAX, PREVIEW_TITLE_MAX } from "./preview";
import { DEVICES, MAX_RULES, MAX_SCHEDULED, SYSTEMS } from "./routing";
import {
  canonicalCode,
  collidingPath,
  CUSTOM_SLUG_MAX,
  CUSTOM_SLUG_MIN,
  CUSTOM_SLUG_PATTERN,
  isReserved,
  printedCodeProblem,
} from "./slugs";
import { linkStatusField } from "./status";

export const MAX_LIST_SIZE = 200;

const destination = z
  .string({ error: "must be a string" })
  .min(1, "must not be empty")
  .max(4096, "must be at most 4096 characters")
  .meta({ description: "http or https URL; stored normalised", example: "https://example.com/spring-menu" });

/** A custom slug typed here: the unambiguous alphabet, in one or more segments (lib/links/slugs.ts). */
const slug = z
  .string({ error: "must be a string" })
  .min(CUSTOM_SLUG_MIN, `must be at least ${CUSTOM_SLUG_MIN} characters`)
  .max(CUSTOM_SLUG_MAX, `must be at most ${CUSTOM_SLUG_MAX} characters`)
  .regex(
    CUSTOM_SLUG_PATTERN,
    "may use letters and digits except 0, O, 1, l and I, plus - and _, with . or ~ between two of them and / between parts",
  )
  .refine((value) => !isReserved(value), "is reserved for the service's own pages")
  .refine((value) => collidingPath(value) === null, "starts with a path reserved for the service's own pages")
  .meta({
    description:
      "case-sensitive, and refused (409) when it differs from an existing slug of its host only by case; " +
      "several segments (2024/spring) allowed; omitted means allocated (7 characters)",
    example: "spring-menu",
  });

/**
 * A code printed by the service an import comes from: kept as it was (any script, 0 O 1 l I,
 * one character, several segments), stored in its one form (NFC). An import keeps a code only
 * with a custom domain's id, and a custom domain's door serves every path not reserved by
 * collidingPath as a visit (lib/resolution/door.ts).
 */
const printedSlug = z
  .string({ error: "must be a string" })
  .transform(canonicalCode)
  .superRefine((value, context) => {
    const problem = printedCodeProblem(value);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });

export const TITLE_MAX = 200;

const title = storedText(
  z
    .string({ error: "must be a string" })
    .trim()
    .max(TITLE_MAX, `must be at most ${TITLE_MAX} characters`)
    .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "may not contain control characters"),
).meta({ description: `the link's name for people, at most ${TITLE_MAX} characters`, example: "Spring menu" });

const countryCode = z
  .string({ error: "must be a string" })
  .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 country code such as AU")
  .transform((code) => code.toUpperCase());

const languageTag = z
  .string({ error: "must be a string" })
  .regex(/^[A-Za-z]{2,3}$/, "must be a primary language tag such as fr (no region)")
  .transform((tag) => tag.toLowerCase());

const conditionList = <T extends z.ZodType>(item: T, max: number) =>
  z.array(item).min(1, "must name at least one value").max(max, `must name at most ${max} values`).optional();

export const ruleConditions = z
  .strictObject({
    country: conditionList(countryCode, 250).meta({ description: "the visitor's country is one of these (ISO 3166-1 alpha-2)" }),
    device: conditionList(z.enum(DEVICES, { error: `must be one of ${DEVICES.join(", ")}` }), DEVICES.length).meta({
      description: "the visitor's device class is one of these",
    }),
    os: conditionList(z.enum(SYSTEMS, { error: `must be one of ${SYSTEMS.join(", ")}` }), SYSTEMS.length).meta({
      description: "the visitor's operating system is one of these",
    }),
    language: conditionList(languageTag, 50).meta({
      description:
        "the visitor's preferred language (the first of Accept-Language's highest weight), as a primary tag, is one of these",
    }),
  })
  .refine(
    (when) => Object.values(when).some((list) => list !== undefined),
    "must name at least one condition: country, device, os or language",
  )
  .meta({ id: "RuleConditions" });

export const routingRule = z
  .strictObject({ when: ruleConditions, destination })
  .meta({ id: "RoutingRule", description: "when every condition named holds, the visit goes to destination" });

export const scheduledRepoint = z
  .strictObject({
    at: z
      .number({ error: "must be a number" })
      .int("must be a whole number of epoch milliseconds")
      .min(0, "must be epoch milliseconds")
      .max(8.64e15, "must be epoch milliseconds")
      .meta({ description: "epoch milliseconds, in the future: from then on the link points at destination" }),
    destination,
  })
  .meta({ id: "ScheduledRepoint" });

export const rulesField = z
  .array(routingRule)
  .max(MAX_RULES, `must hold at most ${MAX_RULES} rules`)
  .meta({ description: `at most ${MAX_RULES}, in order: the first rule that matches a visit chooses its destination` });

export const scheduleField = z
  .array(scheduledRepoint)
  .max(MAX_SCHEDULED, `must hold at most ${MAX_SCHEDULED} repoints`)
  .meta({ description: `at most ${MAX_SCHEDULED} repoints still to come` });

const password = z
  .string({ error: "must be a string" })
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`)
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "may not contain control characters")
  .meta({
    description:
      "write-only: visitors must enter it (or send it in a Link-Password header) before they are redirected; " +
      "kept as a salted hash, never shown again",
    example: "spring-2026",
  });

export const SCAN_LIMIT_MAX = 1_000_000_000;

export const scanLimitField = z
  .strictObject({
    after: z
      .number({ error: "must be a number" })
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(SCAN_LIMIT_MAX, `must be at most ${SCAN_LIMIT_MAX}`)
      .meta({ description: "how many scans go to the link's destination before it switches", example: 1000 }),
    destination,
  })
  .meta({
    id: "ScanLimit",
    description:
      "after this many scans the link points at destination from then on (the code keeps resolving); counted exactly, in the database",
  });

const previewText = (max: number) =>
  storedText(z.string({ error: "must be a string" }).trim().max(max, `must be at most ${max} characters`));

/**
 * What link-preview crawlers (Slack, X, Facebook, LinkedIn, Discord, WhatsApp, iMessage, Telegram)
 * are shown for the link instead of the destination's own tags. Each part omitted keeps what the
 * link has, null (or an empty string) removes it.
 */
export const previewField = z
  .strictObject({
    title: previewText(PREVIEW_TITLE_MAX)
      .nullable()
      .optional()
      .meta({ description: `at most ${PREVIEW_TITLE_MAX} characters`, example: "Our spring menu is here" }),
    description: previewText(PREVIEW_DESCRIPTION_MAX)
      .nullable()
      .optional()
      .meta({ description: `at most ${PREVIEW_DESCRIPTION_MAX} characters`, example: "Twelve new dishes, from Thursday." }),
    image_url: z
      .string({ error: "must be a string" })
      .max(4096, "must be at most 4096 characters")
      .nullable()
      .optional()
      .meta({
        description:
          "null removes the image; otherwise the address the link's uploaded image is served from " +
          "(PUT /api/links/{id}/preview/image sets it), which keeps it",
      }),
  })
  .meta({
    id: "PreviewRequest",
    description: "the social preview crawlers are shown; null removes it (its image too)",
  });

export const createLinkBody = z
  .strictObject({
    destination,
    slug: slug.optional(),
    domain_id: z
      .string()
      .refine(isRecordId, "must be the id of a verified custom domain of the workspace")
      .optional()
      .meta({ description: "id of a verified custom domain of the workspace" }),
    title: title.optional(),
    tags: tagNames.optional(),
    password: password.nullable().optional().meta({ description: "a password visitors must enter; null or omitted: none" }),
    scan_limit: scanLimitField.nullable().optional(),
    preview: previewField
      .nullable()
      .optional()
      .meta({
        description:
          "the social preview crawlers are shown (title and description; its image is uploaded afterwards with " +
          "PUT /api/links/{id}/preview/image); null or omitted: none",
      }),
  })
  .meta({ id: "CreateLinkRequest" });

/** An imported row as a create: the same rules, except that its slug is kept as it was printed. */
export const importedLinkBody = createLinkBody.extend({ slug: printedSlug.optional() });

export const MAX_BULK_LINKS = 100;

/** Each item is validated on its own, so one bad item is that item's 400, not the request's. */
export const bulkCreateBody = z
  .strictObject({
    links: z
      // Each item is validated on its own, so one bad item is that item's 400; the schema still says it is an object.
      .array(z.unknown().meta({ type: "object", description: "a link, as POST /api/links takes it" }))
      .min(1, "must hold at least one link")
      .max(MAX_BULK_LINKS, `must hold at most ${MAX_BULK_LINKS} links`)
      .meta({ description: `1 to ${MAX_BULK_LINKS} links, each as POST /api/links takes it` }),
  })
  .meta({ id: "BulkCreateLinksRequest" });

export const updateLinkBody = z
  .strictObject({
    destination: destination.optional(),
    title: title.nullable().optional().meta({ description: "the new title; null or an empty string removes it" }),
    tags: tagNames.optional().meta({ description: "the link's tags from now on, replacing the ones it had" }),
    rules: rulesField.optional().meta({
      description:
        `the link's routing rules from now on (at most ${MAX_RULES}, first match wins); an empty list ` +
        `removes them. Puts the link back in quarantine, as a repoint does`,
    }),
    schedule: scheduleField.optional().meta({
      description: `the link's scheduled repoints from now on (at most ${MAX_SCHEDULED}, each in the future); an empty list removes them`,
    }),
    password: password.nullable().optional().meta({
      description: "the password visitors must enter from now on (write-only); null removes it",
    }),
    scan_limit: scanLimitField.nullable().optional().meta({
      description: "after this many more scans, point the link at destination (the count starts again); null removes it",
    }),
    preview: previewField.nullable().optional(),
  })
  .refine(
    (body) => Object.values(body).some((value) => value !== undefined),
    "Send destination, title, tags, rules, schedule, password, scan_limit or preview (or several).",
  )
  .meta({ id: "UpdateLinkRequest" });

/** A page's size in a query string: 1 to MAX_LIST_SIZE, the list's default when left out. */
export const pageLimit = z.coerce
  .number()
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(MAX_LIST_SIZE, `must be at most ${MAX_LIST_SIZE}`)
  .optional();

export const listLinksQuery = z.strictObject({
  limit: pageLimit,
  cursor: pageCursor,
  tag: z
    .union([tagName, z.array(tagName).max(10, "may be given at most 10 times")])
    .optional()
    .transform((value) => (value === undefined ? [] : [value].flat()))
    .meta({ description: "only links with this tag; repeat it for links with all of them" }),
});

export const routingRuleView = z
  .object({
    when: z
      .object({
        country: z.array(z.string()).optional(),
        device: z.array(z.enum(DEVICES)).optional(),
        os: z.array(z.enum(SYSTEMS)).optional(),
        language: z.array(z.string()).optional(),
      })
      .meta({ id: "RuleConditionsView" }),
    destination: z.url(),
  })
  .meta({ id: "RoutingRuleView" });

export const scheduledRepointView = z
  .object({ at: z.number().int().meta({ description: "epoch milliseconds" }), destination: z.url() })
  .meta({ id: "ScheduledRepointView" });

export const previewImageQuery = z.object({
  v: z.string().max(64).optional().meta({ description: "the image's version, as the preview's image_url names it" }),
});

export const previewView = z
  .object({
    title: z.string().nullable(),
    description: z.string().nullable(),
    image_url: z.url().nullable().meta({ description: "the uploaded image, served from the service's own origin" }),
  })
  .meta({ id: "Preview" });

export const linkSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    destination: z.url(),
    host: z.string().nullable().meta({ description: "custom domain the link resolves on; null means the default short host" }),
    status: linkStatusField,
    short_url: z.url(),
    created_at: z.number().int().meta({ description: "epoch milliseconds" }),
    archived_at: z.number().int().nullable().meta({ description: "epoch milliseconds; archived links keep resolving" }),
    title: z.string().nullable(),
    tags: z.array(z.string()).meta({ description: "the names of the link's tags, in alphabetical order" }),
    imported_from: z
      .string()
      .nullable()
      .meta({ description: "the short URL the link had at the service it was imported from; null if it was made here" }),
    original_created_at: z.number().int().nullable().meta({
      description: "epoch milliseconds: when the service it was imported from created it, when its export says; null otherwise",
    }),
    rules: z
      .array(routingRuleView)
      .meta({ description: "routing rules in order, the first match wins; empty when the link has none" }),
    schedule: z
      .array(scheduledRepointView)
      .meta({ description: "repoints still to come, in time order; destination is where the link points now" }),
    scan_limit: z
      .object({
        after: z.number().int(),
        destination: z.url(),
        scans: z.number().int().meta({ description: "scans counted toward the limit so far" }),
      })
      .nullable()
      .meta({ id: "ScanLimitView", description: "the switch still to come after a number of scans; null when there is none" }),
    password_protected: z
      .boolean()
      .meta({ description: "visitors must enter the link's password before they are redirected (the password is never shown)" }),
    preview: previewView.nullable().meta({ description: "the social preview crawlers are shown; null when there is none" }),
    preview_count: z.number().int().meta({
      description:
        "times a link-preview crawler was served the preview page (counted apart from scans, which never include them)",
    }),
  })
  .meta({ id: "Link" });

export const linkListItemSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    destination: z.url(),
    status: z.number().int(),
    created_at: z.number().int(),
    host: z.string().nullable(),
    title: z.string().nullable(),
    tags: z.array(z.string()),
  })
  .meta({ id: "LinkListItem" });

export const linkListSchema = z
  .object({
    links: z.array(linkListItemSchema).max(MAX_LIST_SIZE),
    next_cursor: nextPageCursor,
  })
  .meta({ id: "LinkList" });

export const paidLinkSchema = linkSchema
  .extend({
    receipt: z.string().meta({ description: "the payment reference (settlement transaction hash), echoed back" }),
    api_key: z.string().optional().meta({ description: "only on the first paid link of a new machine account; shown once" }),
    notice: z
      .string()
      .optional()
      .meta({
        description:
          "present when the link differs from the request: the custom slug was taken while the payment " +
          "settled, so an allocated slug was used",
      }),
  })
  .meta({ id: "PaidLink" });

export const bulkResultSchema = z
  .object({
    results: z.array(
      z.object({
        index: z.number().int().meta({ description: "the item's position in links, from 0" }),
        status: z.number().int().meta({ description: "what POST /api/links would have answered for this item alone" }),
        link: linkSchema.optional().meta({ description: "the link, for 201 and 200" }),
        error: z.string().optional(),
      }),
    ),
  })
  .meta({ id: "BulkCreateLinksResult" });

export const scheduledRepointRunSchema = z
  .object({
    applied: z.number().int().min(0).meta({ description: "links whose scheduled repoint this run wrote in and announced" }),
  })
  .meta({ id: "ScheduledRepointRun" });

export type ScheduledRepointRun = z.infer<typeof scheduledRepointRunSchema>;
export type CreateLinkInput = z.infer<typeof createLinkBody>;
export type UpdateLinkInput = z.infer<typeof updateLinkBody>;
export type LinkView = z.infer<typeof linkSchema>;
export type LinkListItem = z.infer<typeof linkListItemSchema>;
export type PaidLink = z.infer<typeof paidLinkSchema>;
