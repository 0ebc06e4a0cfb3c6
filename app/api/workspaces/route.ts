import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import {
  createWorkspace as createWorkspaceOperation,
  describeWorkspace,
  renameWorkspace as renameWorkspaceOperation,
} from "@/lib/workspaces/operations";
import { createWorkspace, describeWorkspaces, renameWorkspace } from "@/lib/workspaces/service";

export const GET = apiRoute(describeWorkspace, async ({ principal }) => json(await describeWorkspaces(principal)));

export const POST = apiRoute(createWorkspaceOperation, async ({ principal, body }) =>
  json(await createWorkspace(principal, body.name), 201),
);

export const PATCH = apiRoute(renameWorkspaceOperation, async ({ principal, body }) =>
  json(await renameWorkspace(principal, body.name)),
);

export const { PUT, DELETE, OPTIONS } = otherMethods({ GET, POST, PATCH });
