-- An import by API token pages through a peer's API (docs/imports.md): the page under way is the
-- import's source from source_start on, the customer's key is kept sealed only while pages remain,
-- and peer_cursor says where the next page is.
ALTER TABLE "imports" ADD COLUMN "source_start" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "imports" ADD COLUMN "peer_token_sealed" TEXT;
ALTER TABLE "imports" ADD COLUMN "peer_cursor" JSONB;
