-- A link's social preview (what link-preview crawlers are shown instead of the redirect): its title,
-- description and image (the image's SHA-256, its bytes in link_preview_images), all in the row visits
-- already read; and the number of times a crawler was served it, which is never counted as a scan.
ALTER TABLE "links" ADD COLUMN "preview_title" TEXT;
ALTER TABLE "links" ADD COLUMN "preview_description" TEXT;
ALTER TABLE "links" ADD COLUMN "preview_image" TEXT;
ALTER TABLE "links" ADD COLUMN "preview_count" INTEGER NOT NULL DEFAULT 0;

CREATE TABLE "link_preview_images" (
    "link_id" TEXT NOT NULL,
    "data" BYTEA NOT NULL,
    "content_type" TEXT NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "link_preview_images_pkey" PRIMARY KEY ("link_id")
);

ALTER TABLE "link_preview_images" ADD CONSTRAINT "link_preview_images_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;
