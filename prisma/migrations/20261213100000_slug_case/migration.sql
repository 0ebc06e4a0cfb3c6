-- Codes typed in the wrong case (ADR 0010): a visit with no exact code finds the one code of its
-- host equal to it ignoring case, and no new code may differ from an existing one only by case,
-- except an imported case twin, which is marked and kept outside the unique index.
ALTER TABLE "links" ADD COLUMN "case_twin" BOOLEAN NOT NULL DEFAULT false;

-- Twins that exist already: all but the oldest of each folded code of a host.
UPDATE "links" AS l SET "case_twin" = true
WHERE EXISTS (
  SELECT 1 FROM "links" AS o
  WHERE COALESCE(o."host", '') = COALESCE(l."host", '') AND lower(o."slug") = lower(l."slug")
    AND (o."created_at", o."id") < (l."created_at", l."id")
);

-- The folded code leads, so an exact lookup (links_host_slug_key) is never planned on these.
CREATE INDEX "links_host_slug_fold_idx" ON "links"(lower("slug"), COALESCE("host", ''));
CREATE UNIQUE INDEX "links_host_slug_fold_key" ON "links"(lower("slug"), COALESCE("host", '')) WHERE NOT "case_twin";
