-- A QR design saved for one link, and a workspace's default for links without their own: the
-- options of GET /api/links/{id}/qr, drawn when a request names none. lib/qr/schemas.ts validates
-- every value before it is written; level NULL means the automatic level (M, or H with a logo).
CREATE TABLE "link_qr_designs" (
    "link_id" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "margin" INTEGER NOT NULL,
    "fg" TEXT NOT NULL,
    "bg" TEXT NOT NULL,
    "level" TEXT,
    "logo" BOOLEAN NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "link_qr_designs_pkey" PRIMARY KEY ("link_id")
);

CREATE TABLE "workspace_qr_designs" (
    "workspace_id" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "margin" INTEGER NOT NULL,
    "fg" TEXT NOT NULL,
    "bg" TEXT NOT NULL,
    "level" TEXT,
    "logo" BOOLEAN NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "workspace_qr_designs_pkey" PRIMARY KEY ("workspace_id")
);

ALTER TABLE "link_qr_designs" ADD CONSTRAINT "link_qr_designs_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "workspace_qr_designs" ADD CONSTRAINT "workspace_qr_designs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
