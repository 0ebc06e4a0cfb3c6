import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { newId } from "@/lib/db/random";
// Template names compare as tag names do: the same whatever their case.
import { nameKey } from "@/lib/tags/store";
import type { UtmValues } from "./parameters";

const TEMPLATE_COLUMNS = {
  id: true,
  name: true,
  source: true,
  medium: true,
  campaign: true,
  term: true,
  content: true,
  createdByUserId: true,
  createdAt: true,
} as const;

export type TemplateRow = {
  id: string;
  name: string;
  source: string | null;
  medium: string | null;
  campaign: string | null;
  term: string | null;
  content: string | null;
  createdByUserId: string | null;
  createdAt: Date;
};

export async function listTemplates(workspaceId: string): Promise<TemplateRow[]> {
  return db().utmTemplate.findMany({ where: { workspaceId }, orderBy: { nameKey: "asc" }, select: TEMPLATE_COLUMNS });
}

export async function findTemplate(workspaceId: string, id: string): Promise<TemplateRow | null> {
  return db().utmTemplate.findFirst({ where: { id, workspaceId }, select: TEMPLATE_COLUMNS });
}

/**
 * "taken" when the workspace already has a template of this name (the unique index decides), "full"
 * when it already keeps `max`: the workspace's row is locked first, so concurrent saves take turns
 * and the count each reads includes the previous one's insert.
 */
export async function insertTemplate(
  workspaceId: string,
  createdByUserId: string | null,
  name: string,
  values: UtmValues,
  max: number,
): Promise<TemplateRow | "taken" | "full"> {
  try {
    return await db().$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`;
      if ((await tx.utmTemplate.count({ where: { workspaceId } })) >= max) return "full" as const;
      return tx.utmTemplate.create({
        data: {
          id: newId("utm"),
          workspaceId,
          createdByUserId,
          name,
          nameKey: nameKey(name),
          source: values.utm_source || null,
          medium: values.utm_medium || null,
          campaign: values.utm_campaign || null,
          term: values.utm_term || null,
          content: values.utm_content || null,
        },
        select: TEMPLATE_COLUMNS,
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) return "taken";
    throw error;
  }
}

export async function deleteTemplate(id: string): Promise<void> {
  await db().utmTemplate.deleteMany({ where: { id } });
}
