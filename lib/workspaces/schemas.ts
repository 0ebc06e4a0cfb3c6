import { z } from "zod";
import { epochMilliseconds } from "@/lib/http/schemas";

const role = z.enum(["owner", "admin", "member"]);
const workspaceKind = z.enum(["personal", "team", "machine"]);

const currentWorkspace = z.object({
  id: z.string(),
  name: z.string(),
  kind: workspaceKind,
  created_at: epochMilliseconds,
  role: role.nullable().meta({ description: "the signed-in user's role; null for an API key" }),
  credential: z.enum(["session", "api_key"]).meta({ description: "which kind of credential made this call" }),
  api_key: z
    .object({
      hint: z.string().meta({ description: "prefix and last four characters of the live key" }),
      created_at: epochMilliseconds,
      last_used_at: epochMilliseconds.nullable(),
    })
    .nullable()
    .meta({ description: "the workspace's live API key; null when it has none" }),
});

const workspaceMembership = z.object({ id: z.string(), name: z.string(), kind: workspaceKind, role });

export const workspaceReportSchema = z
  .object({
    workspace: currentWorkspace.meta({ description: "the workspace this call acts on" }),
    workspaces: z
      .array(workspaceMembership)
      .meta({ description: "every workspace the signed-in user belongs to; empty for an API key" }),
  })
  .meta({ id: "WorkspaceReport" });

export const memberSchema = z
  .object({
    id: z.string(),
    email: z.string().nullable(),
    role,
    status: z.enum(["active", "invited"]),
    created_at: epochMilliseconds,
  })
  .meta({ id: "Member" });

export const memberListSchema = z.object({ members: z.array(memberSchema) }).meta({ id: "MemberList" });
