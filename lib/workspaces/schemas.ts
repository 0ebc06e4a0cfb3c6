import { epochMilliseconds, storedText } from "@/lib/http/schemas";
import { z } from "zod";
import { carriesAddress, NAME_CARRIES_ADDRESS } from "./names";

export const roleSchema = z.enum(["owner", "admin", "member", "viewer"]).meta({
  description:
    "owner and admin manage the workspace; member creates links and edits its own; viewer only reads (see docs/teams.md)",
});
const role = roleSchema;
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

export const workspaceMembershipSchema = z
  .object({ id: z.string(), name: z.string(), kind: workspaceKind, role, created_at: epochMilliseconds })
  .meta({ id: "Workspace", description: "a workspace the signed-in user belongs to, and their role there" });
const workspaceMembership = workspaceMembershipSchema;

export const workspaceReportSchema = z
  .object({
    workspace: currentWorkspace.meta({ description: "the workspace this call acts on" }),
    workspaces: z
      .array(workspaceMembership)
      .meta({ description: "every workspace the signed-in user belongs to; empty for an API key" }),
  })
  .meta({ id: "WorkspaceReport" });

/** A name people recognise the workspace by: trimmed, 1 to 80 characters, no control characters, no address (./names.ts). */
const workspaceName = storedText(z.string().trim().min(1, "must not be empty").max(80, "must be at most 80 characters")).refine(
  (name) => !carriesAddress(name),
  NAME_CARRIES_ADDRESS,
);

export const createWorkspaceBodySchema = z.strictObject({ name: workspaceName }).meta({ id: "CreateWorkspace" });
export const renameWorkspaceBodySchema = z.strictObject({ name: workspaceName }).meta({ id: "RenameWorkspace" });
