-- Dashboard sign-in (next-auth): pending e-mail links (hashed tokens) and linked OAuth accounts.
CREATE TABLE "sign_in_tokens" (
    "identifier" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "sign_in_tokens_pkey" PRIMARY KEY ("token_hash")
);
CREATE INDEX "sign_in_tokens_expires_at_idx" ON "sign_in_tokens"("expires_at");

CREATE TABLE "sign_in_accounts" (
    "id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "provider_account_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "sign_in_accounts_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "sign_in_accounts_provider_provider_account_id_key" ON "sign_in_accounts"("provider", "provider_account_id");
CREATE INDEX "sign_in_accounts_user_id_idx" ON "sign_in_accounts"("user_id");
ALTER TABLE "sign_in_accounts" ADD CONSTRAINT "sign_in_accounts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
