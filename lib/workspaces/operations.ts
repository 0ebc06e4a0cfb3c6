import { claimResponseSchema, revokeResponseSchema } from "@/lib/auth/schemas";
import { defineOperation, failure, ok } from "@/lib/http/operation";
import {
  createWorkspaceBodySchema,
  renameWorkspaceBodySchema,
  workspaceMembershipSchema,
  workspaceReportSchema,
} from "./schemas";

export const claimApiKey = defineOperation({
  method: "post",
  path: "/api/billing/claim",
  auth: "session",
  operationId: "claimApiKey",
  summary: "Mint the workspace's API key",
  description:
    "Needs a session token of an owner or admin; takes no body. The raw key is returned once and " +
    "stored only as a hash, so it cannot be recovered. A workspace has at most one live key.",
  tag: "API keys",
  write: true,
  responses: {
    200: ok("The raw key, shown once.", claimResponseSchema),
    403: failure("An API key cannot mint keys, and members cannot claim one."),
    409: failure("The workspace already has a live key; an owner must revoke it first."),
  },
});

export const revokeApiKey = defineOperation({
  method: "delete",
  path: "/api/billing/claim",
  auth: "session",
  operationId: "revokeApiKey",
  summary: "Revoke the workspace's API key",
  description: "Needs an owner's session token. The key stops authenticating at once.",
  tag: "API keys",
  write: true,
  responses: {
    200: ok("When the key was revoked.", revokeResponseSchema),
    403: failure("Only an owner's session token can revoke the key."),
    404: failure("The workspace has no live key."),
  },
});

export const describeWorkspace = defineOperation({
  method: "get",
  path: "/api/workspaces",
  auth: "workspace",
  scope: "account:read",
  operationId: "describeWorkspace",
  summary: "Describe the current workspace",
  description:
    "The workspace this call acts on, the caller's role there (null for an API key), the credential " +
    "used and the live key's hint; for a session token, also every workspace the user belongs to, " +
    "with the role in each.",
  tag: "Workspaces",
  responses: { 200: ok("The workspace report.", workspaceReportSchema) },
});

export const createWorkspace = defineOperation({
  method: "post",
  path: "/api/workspaces",
  auth: "session",
  operationId: "createWorkspace",
  summary: "Create a team workspace",
  description:
    "With a session token: a new team workspace with the caller as its owner. It starts without a " +
    "subscription (creating links and inviting people there need one: POST /api/billing/checkout " +
    "with X-Workspace-Id) and without an API key. Act on it by sending its id as X-Workspace-Id. One " +
    "person creates at most 10 team workspaces. The name may not contain a web address or a domain " +
    "name, because invitations quote it.",
  tag: "Workspaces",
  write: true,
  body: createWorkspaceBodySchema,
  responses: {
    201: ok("The new workspace; the caller is its owner.", workspaceMembershipSchema),
    403: failure("An API key cannot create workspaces."),
    409: failure("The caller has already created 10 team workspaces."),
  },
});

export const renameWorkspace = defineOperation({
  method: "patch",
  path: "/api/workspaces",
  auth: "session",
  operationId: "renameWorkspace",
  summary: "Rename the current workspace",
  description:
    "Owners and admins, with a session token; the workspace is the one X-Workspace-Id names (the personal one without it).",
  tag: "Workspaces",
  write: true,
  body: renameWorkspaceBodySchema,
  responses: {
    200: ok("The renamed workspace.", workspaceMembershipSchema),
    403: failure("An API key was sent, or your role does not allow renaming."),
  },
});

export const rotateApiKey = defineOperation({
  method: "post",
  path: "/api/keys/rotate",
  auth: "api_key",
  operationId: "rotateApiKey",
  summary: "Rotate the API key",
  description:
    "Send it with the API key to replace (any workspace's, a machine account's too); takes no body. " +
    "The new raw key is returned once and the old key stops authenticating at once. Of concurrent " +
    "rotations with one key, exactly one succeeds.",
  tag: "API keys",
  write: true,
  responses: {
    200: ok("The new raw key, shown once.", claimResponseSchema),
    403: failure("A session token was sent: rotate with the key itself, or revoke and claim with an owner's session."),
  },
});
