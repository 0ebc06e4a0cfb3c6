import { defineOperation, failure, ok, type ParameterSpec, RATE_LIMIT_HEADERS } from "@/lib/http/operation";
import { escrowKeysSchema, escrowPublicationBody, escrowPublicationSchema, escrowRunSchema } from "./schemas";

const FORMAT =
  "JSON Lines in the escrow format, version 1 (docs/escrow.md): a header pinning the Ed25519 key (and naming custom domains' root and not-found destinations), one line a code " +
  "(host, slug, current destination, rules, scheduled changes, scan limit, status, password_protected, created_at, " +
  "archived_at), and a signature line over everything before it; streamed as it is read. Check it with " +
  "`npm run verify-escrow -- FILE --keys https://…/.well-known/permalink-escrow.json`, which needs nothing else of this service.";

const SNAPSHOT = {
  description: "The signed snapshot, as an attachment.",
  files: ["application/jsonl"],
  headers: { "Content-Disposition": "ContentDisposition" },
} as const;

const DOMAIN_ID_PARAMETER = {
  name: "id",
  in: "path",
  required: true,
  description: "the custom domain's id",
} as const satisfies ParameterSpec;

export const getEscrow = defineOperation({
  method: "get",
  path: "/api/escrow",
  auth: "workspace",
  operationId: "getEscrow",
  summary: "Download the signed escrow of every code",
  description:
    `Every code the workspace has issued, on every host, archived ones included. ${FORMAT} Owners, admins and the ` +
    "workspace's API key; at most 10 a minute per credential and 30 per client network (429 with Retry-After).",
  tag: "Escrow",
  responses: {
    200: SNAPSHOT,
    403: failure("Only the workspace's owners and admins (and its API key) may download its escrow."),
    429: failure("More than 10 escrow downloads this minute with this credential, or 30 from your network.", RATE_LIMIT_HEADERS),
  },
});

export const getServiceEscrow = defineOperation({
  method: "get",
  path: "/api/operator/escrow",
  auth: "operator",
  operationId: "getServiceEscrow",
  summary: "Download the signed escrow of every code of the service (operator)",
  description: `Every code issued on every host by every workspace, archived ones included. ${FORMAT}`,
  tag: "Escrow",
  responses: { 200: SNAPSHOT },
});

export const getEscrowKeys = defineOperation({
  method: "get",
  path: "/api/escrow/keys",
  auth: "public",
  operationId: "getEscrowKeys",
  summary: "The keys escrow snapshots are signed with",
  description:
    "Every Ed25519 key a snapshot was ever signed with, current (retired_at null) and past, so a snapshot " +
    "signed before a rotation still verifies. The same document is served at /.well-known/permalink-escrow.json.",
  tag: "Escrow",
  responses: { 200: ok("The keys, oldest first.", escrowKeysSchema) },
});

export const setEscrowPublication = defineOperation({
  method: "put",
  path: "/api/domains/{id}/escrow",
  auth: "workspace",
  write: true,
  operationId: "setEscrowPublication",
  summary: "Publish a custom domain's signed snapshot, or stop",
  description:
    "With published: true, anyone may download the signed snapshot of every code on this domain at url " +
    "(GET /api/escrow/domains/{id}), so an archive can mirror it and keep the codes alive. The file is public: it " +
    "shows every code's destination, rules, scheduled changes and scan limit, and the domain's root and not-found " +
    "destinations; a password-protected code is listed with its destinations withheld (null). Owners, admins and " +
    "the API key; the domain must be verified for the snapshot to be served.",
  tag: "Escrow",
  parameters: [DOMAIN_ID_PARAMETER],
  body: escrowPublicationBody,
  responses: {
    200: ok("Whether the snapshot is published, and where.", escrowPublicationSchema),
    400: failure("The body failed validation."),
    403: failure("Your role in this workspace does not allow managing domains."),
    404: failure("No domain with this id exists in this workspace."),
  },
});

export const getPublishedDomainEscrow = defineOperation({
  method: "get",
  path: "/api/escrow/domains/{id}",
  auth: "public",
  operationId: "getPublishedDomainEscrow",
  summary: "A published custom domain's signed snapshot",
  description:
    `Every code on one verified custom domain whose owners chose to publish it, for anyone. ${FORMAT} ` +
    "Password-protected codes are listed with their destinations withheld (null). " +
    "At most 30 a minute per client network (429 with Retry-After).",
  tag: "Escrow",
  parameters: [DOMAIN_ID_PARAMETER],
  responses: {
    200: SNAPSHOT,
    404: failure("No published escrow exists for this domain."),
    429: failure("More than 30 escrow downloads this minute from your network.", RATE_LIMIT_HEADERS),
  },
});

export const writeEscrowSnapshot = defineOperation({
  method: "get",
  path: "/api/cron/escrow",
  auth: "cron",
  operationId: "writeEscrowSnapshot",
  summary: "Write today's signed snapshot of every code (cron)",
  description:
    "Writes the escrow of every code of the service to ESCROW_DIRECTORY as permalink-escrow-YYYY-MM-DD.jsonl, once " +
    "a UTC day, and keeps the last ESCROW_KEEP. Vercel Cron calls it with Bearer CRON_SECRET.",
  tag: "Operations",
  responses: { 200: ok("What this pass wrote and kept.", escrowRunSchema) },
});
