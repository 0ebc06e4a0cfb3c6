-- One visitor row a scan instead of two (docs/adr/0011-scan-rollups-and-what-each-is-for.md): who
-- scanned a link on a UTC day, keyed by the day, the link's workspace, the visitor's daily hash and
-- the link. The key decides a visitor's first scan of a link (exact, across instances); its prefix
-- (day, workspace_id, visitor) says whether the workspace had seen the visitor that day before a
-- batch, so the workspace's own visitor rows (scan_visitors' workspace scopes) are no longer written.
CREATE TABLE "scan_link_visitors" (
    "day" DATE NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "visitor" BYTEA NOT NULL,
    "link_id" TEXT NOT NULL,

    CONSTRAINT "scan_link_visitors_pkey" PRIMARY KEY ("day", "workspace_id", "visitor", "link_id")
);

-- The visitor sets kept so far (today's and the two days before) carried over, so a visitor seen
-- before the upgrade is not counted again by this release. scan_visitors stays for a release from
-- before this one (a rolling restart, a rollback); the retention job keeps pruning it.
INSERT INTO "scan_link_visitors" ("day", "workspace_id", "visitor", "link_id")
SELECT v."day", l."workspace_id", v."visitor", v."scope_id"
FROM "scan_visitors" v JOIN "links" l ON l."id" = v."scope_id"
ON CONFLICT DO NOTHING;
