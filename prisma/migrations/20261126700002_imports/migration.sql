-- Import jobs. The file stays in "source" until the job is done, so a job a restart interrupted
-- resumes at next_row; lease_until is how one job at a time holds an import.
CREATE TABLE "imports" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "user_id" TEXT,
    "format" TEXT NOT NULL,
    "domain_id" TEXT,
    "dry_run" BOOLEAN NOT NULL,
    "status" TEXT NOT NULL,
    "source" TEXT,
    "total" INTEGER NOT NULL,
    "next_row" INTEGER NOT NULL DEFAULT 0,
    "created" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "errors" JSONB NOT NULL DEFAULT '[]',
    "lease_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    CONSTRAINT "imports_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "imports_workspace_id_created_at_idx" ON "imports"("workspace_id", "created_at" DESC);
ALTER TABLE "imports" ADD CONSTRAINT "imports_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- What makes the same file imported twice create nothing the second time: a link's original short URL, per workspace.
CREATE INDEX "links_workspace_id_imported_from_idx" ON "links"("workspace_id", "imported_from");
