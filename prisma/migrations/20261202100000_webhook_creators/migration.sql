-- Who created each endpoint and who last saw its secret (created or rotated it), so a person who is removed
-- or loses admin rights takes no live endpoint with them: their endpoints are disabled and the ones whose
-- secret they hold are flagged for rotation (rotation_due_at). Endpoints created before this migration have
-- no creator (NULL): no removal disables them (docs/webhooks.md). New nullable columns: nothing is rewritten.
ALTER TABLE "webhooks" ADD COLUMN "created_by_user_id" TEXT;
ALTER TABLE "webhooks" ADD COLUMN "secret_seen_by_user_id" TEXT;
ALTER TABLE "webhooks" ADD COLUMN "rotation_due_at" TIMESTAMPTZ(3);
