-- Titles, tags and where an imported link came from. The new link columns are nullable without a
-- default, so adding them rewrites nothing.
ALTER TABLE "links" ADD COLUMN "title" TEXT;
ALTER TABLE "links" ADD COLUMN "imported_from" TEXT;

CREATE TABLE "tags" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "name_key" TEXT NOT NULL,
    "color" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "tags_pkey" PRIMARY KEY ("id")
);
-- Case-insensitive uniqueness is decided here, by the index, whoever creates the tag at the same time.
CREATE UNIQUE INDEX "tags_workspace_id_name_key_key" ON "tags"("workspace_id", "name_key");
ALTER TABLE "tags" ADD CONSTRAINT "tags_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "link_tags" (
    "link_id" TEXT NOT NULL,
    "tag_id" TEXT NOT NULL,
    CONSTRAINT "link_tags_pkey" PRIMARY KEY ("link_id","tag_id")
);
CREATE INDEX "link_tags_tag_id_idx" ON "link_tags"("tag_id");
ALTER TABLE "link_tags" ADD CONSTRAINT "link_tags_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "link_tags" ADD CONSTRAINT "link_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE;
