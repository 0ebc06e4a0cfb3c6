-- A link's password, as a salted scrypt hash (scrypt$N$r$p$salt$hash, base64url); null: the link has none.
ALTER TABLE "links" ADD COLUMN "password_hash" TEXT;
