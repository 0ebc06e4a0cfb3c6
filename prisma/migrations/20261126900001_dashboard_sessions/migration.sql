-- A dashboard sign-in: next-auth's JWT cookie names one of these (its sid), and counts only while
-- ended_at is null. Signing out ends that row; "sign out everywhere" ends every row of the user.
CREATE TABLE "dashboard_sessions" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "dashboard_sessions_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "dashboard_sessions_user_id_idx" ON "dashboard_sessions"("user_id");

ALTER TABLE "dashboard_sessions" ADD CONSTRAINT "dashboard_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
