-- A user is (issuer, subject), unique since the core migration. The e-mail beside it is only
-- informational unless the identity provider vouched for it: the built-in provider always does,
-- an external one when its token says email_verified. Rows from before this column stay
-- unverified until their next sign-in records what the provider says.

-- AlterTable
ALTER TABLE "users" ADD COLUMN "email_verified" BOOLEAN NOT NULL DEFAULT false;
