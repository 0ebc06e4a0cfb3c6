-- How many team workspaces each person has created: one conditional UPDATE of this counter decides
-- the cap (lib/workspaces/store.ts), so concurrent creates cannot pass it. Existing people are
-- counted by the team workspaces they own.
ALTER TABLE "users" ADD COLUMN "team_workspaces_created" INTEGER NOT NULL DEFAULT 0;

UPDATE "users" u SET "team_workspaces_created" = owned.count
FROM (
    SELECT m."user_id", count(*)::int AS count
    FROM "memberships" m JOIN "workspaces" w ON w."id" = m."workspace_id"
    WHERE w."kind" = 'team' AND m."role" = 'owner'
    GROUP BY m."user_id"
) owned
WHERE owned."user_id" = u."id";

-- Invitation e-mails a workspace has sent on one UTC day (invitations and re-sends): one
-- INSERT … ON CONFLICT DO UPDATE … WHERE sent < cap takes a unit or refuses it (lib/members/store.ts).
CREATE TABLE "invitation_days" (
    "workspace_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "sent" INTEGER NOT NULL,

    CONSTRAINT "invitation_days_pkey" PRIMARY KEY ("workspace_id", "day")
);

ALTER TABLE "invitation_days" ADD CONSTRAINT "invitation_days_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
