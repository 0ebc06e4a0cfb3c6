-- Saved UTM parameters per workspace, for the dashboard's builder. A new table: nothing existing is rewritten.
CREATE TABLE "utm_templates" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "name_key" TEXT NOT NULL,
    "utm_source" TEXT,
    "utm_medium" TEXT,
    "utm_campaign" TEXT,
    "utm_term" TEXT,
    "utm_content" TEXT,
    "created_by_user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "utm_templates_pkey" PRIMARY KEY ("id")
);
-- Case-insensitive uniqueness is decided here, by the index, whoever saves the name at the same time.
CREATE UNIQUE INDEX "utm_templates_workspace_id_name_key_key" ON "utm_templates"("workspace_id", "name_key");
ALTER TABLE "utm_templates" ADD CONSTRAINT "utm_templates_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
