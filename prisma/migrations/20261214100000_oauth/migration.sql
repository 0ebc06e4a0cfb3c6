-- OAuth 2.1 for agents (docs/agents.md, ADR 0012): apps that registered themselves, what a person
-- allowed each (grants: the connected apps), authorization requests and their one-use codes, and
-- the grants' access and refresh tokens. Codes and tokens are stored only as SHA-256 digests.
CREATE TABLE "oauth_clients" (
    "id"            TEXT NOT NULL PRIMARY KEY,
    "name"          TEXT NOT NULL,
    "client_uri"    TEXT,
    "logo_uri"      TEXT,
    "redirect_uris" TEXT[] NOT NULL,
    "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

CREATE TABLE "oauth_grants" (
    "id"           TEXT NOT NULL PRIMARY KEY,
    "client_id"    TEXT NOT NULL REFERENCES "oauth_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    "workspace_id" TEXT NOT NULL REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    "user_id"      TEXT NOT NULL REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    "scopes"       TEXT[] NOT NULL,
    "resource"     TEXT NOT NULL,
    "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at"   TIMESTAMPTZ(3)
);
CREATE INDEX "oauth_grants_workspace_id_idx" ON "oauth_grants"("workspace_id");
CREATE INDEX "oauth_grants_user_id_idx" ON "oauth_grants"("user_id");

CREATE TABLE "oauth_authorizations" (
    "id"             TEXT NOT NULL PRIMARY KEY,
    "client_id"      TEXT NOT NULL REFERENCES "oauth_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    "redirect_uri"   TEXT NOT NULL,
    "code_challenge" TEXT NOT NULL,
    "scopes"         TEXT[] NOT NULL,
    "resource"       TEXT NOT NULL,
    "state"          TEXT,
    "created_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "expires_at"     TIMESTAMPTZ(3) NOT NULL,
    "user_id"        TEXT,
    "workspace_id"   TEXT,
    "granted_scopes" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "code_hash"      TEXT,
    "used_at"        TIMESTAMPTZ(3),
    "grant_id"       TEXT
);
CREATE UNIQUE INDEX "oauth_authorizations_code_hash_key" ON "oauth_authorizations"("code_hash");

CREATE TABLE "oauth_tokens" (
    "id"         TEXT NOT NULL PRIMARY KEY,
    "grant_id"   TEXT NOT NULL REFERENCES "oauth_grants"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    "kind"       TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at"    TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "oauth_tokens_token_hash_key" ON "oauth_tokens"("token_hash");
CREATE INDEX "oauth_tokens_grant_id_idx" ON "oauth_tokens"("grant_id");
