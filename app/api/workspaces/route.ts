import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as workspaceOperations from "@/lib/workspaces/operations";
import { createWorkspace, describeWorkspaces, renameWorkspace } from "@/lib/workspaces/service";

export const GET = apiRoute(workspaceOperations.describeWorkspace, async ({ principal, reply }) =>
  reply(200, await describeWorkspaces(principal)),
);

export const POST = apiRoute(workspaceOperations.createWorkspace, async ({ principal, body, reply }) =>
  reply(201, await createWorkspace(principal, body.name)),
);

export const PATCH = apiRoute(workspaceOperations.renameWorkspace, async ({ principal, body, reply }) =>
  reply(200, await renameWorkspace(principal, body.name)),
);

export const { PUT, DELETE, OPTIONS } = otherMethods({ GET, POST, PATCH });
