import { nextPageCursor, pageCursor } from "@/lib/http/schemas";
import { z } from "zod";
import { MAX_LIST_SIZE, pageLimit, previewView, routingRuleView, scheduledRepointView } from "./schemas";

/** The kinds of change a link's history records (the same vocabulary as linkChanged's). */
export const HISTORY_CHANGES = [
  "created",
  "edited",
  "repoint_applied",
  "scan_limit_reached",
  "archived",
  "restored",
  "status_changed",
] as const;
export type HistoryChange = (typeof HISTORY_CHANGES)[number];

/** Through which door a change came: session_token and oauth are a person's session token and an OAuth app's token on the HTTP API. */
export const HISTORY_DOORS = [
  "dashboard",
  "api_key",
  "session_token",
  "oauth",
  "mcp",
  "bulk",
  "import",
  "machine_payment",
  "operator",
  "service",
] as const;
export type HistoryDoor = (typeof HISTORY_DOORS)[number];

/** What a history row keeps of the link before and after a change: everything a change can touch, never a secret. */
export const recordedLinkSchema = z
  .object({
    destination: z.url(),
    status: z.number().int(),
    title: z.string().nullable(),
    tags: z.array(z.string()),
    rules: z.array(routingRuleView),
    schedule: z.array(scheduledRepointView),
    archived_at: z.number().int().nullable().meta({ description: "epoch milliseconds" }),
    scan_limit: z
      .object({ after: z.number().int(), destination: z.url() })
      .nullable()
      .meta({ description: "after this many scans the link repoints to destination; null when it has no limit" }),
    password_protected: z.boolean().meta({ description: "whether the link asks for a password (never the password itself)" }),
    preview: previewView
      .nullable()
      .optional()
      .meta({ description: "the social preview crawlers are shown; absent from changes recorded before links had one" }),
  })
  .meta({ id: "RecordedLink" });
export type RecordedLink = z.infer<typeof recordedLinkSchema>;

export const historyEntrySchema = z
  .object({
    at: z.number().int().meta({ description: "epoch milliseconds: when the change committed" }),
    change: z.enum(HISTORY_CHANGES),
    via: z.enum(HISTORY_DOORS).meta({ description: "the door the change came through" }),
    by: z
      .object({
        kind: z
          .enum(["member", "app", "api_key", "machine_account", "operator", "service"])
          .meta({ description: "app: an app connected with OAuth, acting for the member user_id" }),
        user_id: z.string().nullable().meta({ description: "the member, or the member an app acted for" }),
        email: z.string().nullable().meta({
          description:
            "the member's address, while they have an account; null unless the caller may read members (an app needs members:read)",
        }),
        app: z
          .object({
            client_id: z.string(),
            name: z.string().meta({ description: "the app's name as it registered it (text)" }),
            grant_id: z.string().meta({ description: "the connection (ogr_…) it acted through" }),
          })
          .nullable()
          .meta({ description: "the connected app, for kind app; null otherwise" }),
        api_key_id: z.string().nullable(),
        payer: z.string().nullable().meta({ description: "a machine account's payer (a DID)" }),
      })
      .meta({ id: "HistoryActor" }),
    changed: z
      .array(
        z.enum([
          "destination",
          "status",
          "title",
          "tags",
          "rules",
          "schedule",
          "archived_at",
          "scan_limit",
          "password_protected",
          "password",
          "preview",
        ]),
      )
      .meta({
        description:
          "the fields whose value differs between before and after (all of them for a creation); password when the " +
          "password was set, replaced or removed",
      }),
    before: recordedLinkSchema.nullable().meta({ description: "null for the creation" }),
    after: recordedLinkSchema,
  })
  .meta({ id: "LinkHistoryEntry" });
export type HistoryEntryView = z.infer<typeof historyEntrySchema>;

export const linkHistorySchema = z
  .object({ entries: z.array(historyEntrySchema).max(MAX_LIST_SIZE), next_cursor: nextPageCursor })
  .meta({ id: "LinkHistory" });

export const linkHistoryQuery = z.strictObject({ limit: pageLimit, cursor: pageCursor });
