import { storedText } from "@/lib/http/schemas";
import { z } from "zod";

export const TAG_NAME_MAX = 40;
export const MAX_TAGS_PER_LINK = 10;
export const TAG_COLORS = ["gray", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink", "brown"] as const;
export const DEFAULT_TAG_COLOR = "blue";

/** A tag name as people type it: trimmed; commas, semicolons and pipes separate tags in files, so none of them is in a name. */
export const tagName = storedText(
  z
    .string({ error: "must be a string" })
    .trim()
    .min(1, "must not be empty")
    .max(TAG_NAME_MAX, `must be at most ${TAG_NAME_MAX} characters`)
    .regex(/^[^,;|\u0000-\u001f\u007f-\u009f]+$/, "may not contain commas, semicolons, pipes or control characters"),
).meta({ description: `1 to ${TAG_NAME_MAX} characters; unique in the workspace without regard to case`, example: "menus" });

const tagColor = z
  .enum(TAG_COLORS, { error: `must be one of ${TAG_COLORS.join(", ")}` })
  .meta({ description: `one of ${TAG_COLORS.join(", ")}` });

/** The tags of a link, by name; a name the workspace has no tag for yet creates that tag. */
export const tagNames = z
  .array(tagName, { error: "must be an array of tag names" })
  .max(MAX_TAGS_PER_LINK, `must have at most ${MAX_TAGS_PER_LINK} tags`)
  .meta({ description: `tag names (at most ${MAX_TAGS_PER_LINK}); a name new to the workspace creates the tag` });

export const createTagBody = z
  .strictObject({ name: tagName, color: tagColor.optional().meta({ description: `defaults to ${DEFAULT_TAG_COLOR}` }) })
  .meta({ id: "CreateTagRequest" });

export const updateTagBody = z
  .strictObject({ name: tagName.optional(), color: tagColor.optional() })
  .refine((body) => body.name !== undefined || body.color !== undefined, "Send name, color or both.")
  .meta({ id: "UpdateTagRequest" });

export const tagSchema = z.object({ id: z.string(), name: z.string(), color: z.enum(TAG_COLORS) }).meta({ id: "Tag" });

export const tagListSchema = z.object({ tags: z.array(tagSchema) }).meta({ id: "TagList" });

export type TagView = z.infer<typeof tagSchema>;
export type CreateTagInput = z.infer<typeof createTagBody>;
export type UpdateTagInput = z.infer<typeof updateTagBody>;
