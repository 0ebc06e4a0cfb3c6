-- The background re-check of a verified domain's root_destination and not_found_destination
-- (docs/domains.md): when they were last checked, and for each a check found harmful, why it is no
-- longer served (null: served). Setting the destination again (PATCH, through the gate) clears it.
ALTER TABLE "domains" ADD COLUMN "destinations_checked_at" TIMESTAMPTZ(3);
ALTER TABLE "domains" ADD COLUMN "root_destination_blocked" TEXT;
ALTER TABLE "domains" ADD COLUMN "not_found_destination_blocked" TEXT;
