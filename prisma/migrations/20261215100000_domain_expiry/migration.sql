-- When a verified custom domain's registration (RDAP) and certificate (a TLS handshake) lapse,
-- when each was last looked up, and the warnings sent before a lapse (docs/domains.md). Only
-- read by the expiry check and the domain's view: nothing here changes how codes resolve.
ALTER TABLE "domains" ADD COLUMN "registration_expires_at" TIMESTAMPTZ(3);
ALTER TABLE "domains" ADD COLUMN "registration_checked_at" TIMESTAMPTZ(3);
ALTER TABLE "domains" ADD COLUMN "certificate_expires_at" TIMESTAMPTZ(3);
ALTER TABLE "domains" ADD COLUMN "certificate_checked_at" TIMESTAMPTZ(3);

-- One row per warning: its unique key makes each threshold of each expiry date one warning,
-- however many checks decide it at once (INSERT … ON CONFLICT DO NOTHING).
CREATE TABLE "domain_expiry_warnings" (
    "id" TEXT NOT NULL,
    "domain_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "days" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "emailed_at" TIMESTAMPTZ(3),

    CONSTRAINT "domain_expiry_warnings_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "domain_expiry_warnings_domain_id_kind_expires_at_days_key"
    ON "domain_expiry_warnings"("domain_id", "kind", "expires_at", "days");

ALTER TABLE "domain_expiry_warnings" ADD CONSTRAINT "domain_expiry_warnings_domain_id_fkey"
    FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;
