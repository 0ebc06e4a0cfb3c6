-- The keys the escrow of every code is signed with (lib/escrow/keys.ts). One is current (retired_at
-- null); a rotation retires it and adds the next, and nothing deletes a row, so every snapshot ever
-- signed stays verifiable against the well-known document that lists them all. A key the service
-- generated keeps its private half sealed under AUTH_SECRET; one from ESCROW_SIGNING_KEY keeps none.
CREATE TABLE "escrow_keys" (
    "id"                 TEXT PRIMARY KEY,
    "public_key"         TEXT NOT NULL,
    "sealed_private_key" TEXT,
    "created_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "retired_at"         TIMESTAMPTZ(3)
);

CREATE UNIQUE INDEX "escrow_keys_current_key" ON "escrow_keys" ((true)) WHERE "retired_at" IS NULL;

-- A custom domain whose owner chose to publish its snapshot at a public address, so an archive can mirror it.
CREATE TABLE "escrow_publications" (
    "domain_id"    TEXT PRIMARY KEY REFERENCES "domains" ("id") ON DELETE CASCADE,
    "published_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
