-- Every entry of an import (a row, or a further code a row printed) and what became of it:
-- created, kept (already here), merged into another row's link, or failed with its sentence. One
-- multi-row insert a batch, in the statement that saves the batch's counts.
CREATE TABLE "import_rows" (
    "import_id" TEXT NOT NULL,
    "entry" INTEGER NOT NULL,
    "row" INTEGER NOT NULL,
    "code" TEXT,
    "outcome" TEXT NOT NULL,
    "link_id" TEXT,
    "merged_into" INTEGER,
    "error" TEXT,
    -- What a created entry stands for (its original short URL, its destination): a resumed job
    -- merges later rows into it as the first job would have.
    "keys" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    CONSTRAINT "import_rows_pkey" PRIMARY KEY ("import_id", "entry")
);
ALTER TABLE "import_rows" ADD CONSTRAINT "import_rows_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "imports" ADD COLUMN "kept" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "imports" ADD COLUMN "merged" INTEGER NOT NULL DEFAULT 0;

-- When the service a link was imported from created it; created_at stays when it was created here.
ALTER TABLE "links" ADD COLUMN "original_created_at" TIMESTAMPTZ(3);
