import { storedText } from "@/lib/http/schemas";
import { z } from "zod";
import { TEMPLATE_NAME_MAX, UTM_FIELDS, UTM_VALUE_MAX } from "./parameters";

/** Templates a workspace keeps at most: a list people choose from, not a store. */
export const MAX_TEMPLATES = 100;

const INVISIBLE_REFUSAL = "may not contain control or invisible formatting characters";

const templateName = z
  .string({ error: "must be a string" })
  .trim()
  .min(1, "must not be empty")
  .max(TEMPLATE_NAME_MAX, `must be at most ${TEMPLATE_NAME_MAX} characters`)
  // Spelled out for the OpenAPI document (its readers apply no u flag, so \p{…} means something else or fails there):
  // the control characters and the formatting ones of the Basic Multilingual Plane; the rest of Unicode's Cf after it.
  .regex(
    /^[^\u0000-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]+$/,
    INVISIBLE_REFUSAL,
  )
  .refine((name) => !/\p{Cf}/u.test(name), INVISIBLE_REFUSAL)
  .meta({
    description: `1 to ${TEMPLATE_NAME_MAX} characters; unique in the workspace without regard to case`,
    example: "Spring posters",
  });

const utmValue = (field: string, example: string) =>
  storedText(
    z
      .string({ error: "must be a string" })
      .trim()
      .max(UTM_VALUE_MAX, `must be at most ${UTM_VALUE_MAX} characters`)
      .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "may not contain control characters"),
  )
    .optional()
    .meta({ description: `the value of ${field} in a destination's query; empty or absent leaves it out`, example });

export const createUtmTemplateBody = z
  .strictObject({
    name: templateName,
    utm_source: utmValue("utm_source", "poster"),
    utm_medium: utmValue("utm_medium", "print"),
    utm_campaign: utmValue("utm_campaign", "spring-menu"),
    utm_term: utmValue("utm_term", "brunch"),
    utm_content: utmValue("utm_content", "table-tent"),
  })
  .refine(
    (body) => UTM_FIELDS.some((field) => body[field]),
    `Fill in at least one of ${UTM_FIELDS.join(", ")}: a template without parameters adds nothing.`,
  )
  .meta({ id: "CreateUtmTemplateRequest" });

const storedValue = z.string().nullable();

export const utmTemplateSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    utm_source: storedValue,
    utm_medium: storedValue,
    utm_campaign: storedValue,
    utm_term: storedValue,
    utm_content: storedValue,
    created_at: z.number().int().meta({ description: "epoch milliseconds" }),
  })
  .meta({ id: "UtmTemplate", description: "saved UTM parameters; null where the template leaves a parameter out" });

export const utmTemplateListSchema = z.object({ templates: z.array(utmTemplateSchema) }).meta({ id: "UtmTemplateList" });

export type UtmTemplateView = z.infer<typeof utmTemplateSchema>;
export type CreateUtmTemplateInput = z.infer<typeof createUtmTemplateBody>;
