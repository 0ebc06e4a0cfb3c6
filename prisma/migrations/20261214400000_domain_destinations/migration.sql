-- Where a verified custom domain sends its root and its unknown codes (docs/domains.md); null:
-- the service's own plain page, as before.
ALTER TABLE "domains" ADD COLUMN "root_destination" TEXT;
ALTER TABLE "domains" ADD COLUMN "not_found_destination" TEXT;
