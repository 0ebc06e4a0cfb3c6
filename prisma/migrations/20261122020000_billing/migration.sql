-- CreateEnum
CREATE TYPE "BillingProvider" AS ENUM ('stripe', 'local');

-- CreateEnum
CREATE TYPE "BillingPlan" AS ENUM ('starter', 'unlimited');

-- CreateEnum
CREATE TYPE "BillingInterval" AS ENUM ('month', 'year');

-- CreateEnum
CREATE TYPE "SubscriptionStatus" AS ENUM ('none', 'incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'paused', 'canceled');

-- CreateEnum
CREATE TYPE "LocalBillingSessionKind" AS ENUM ('checkout', 'portal');

-- CreateTable
CREATE TABLE "billing_accounts" (
    "workspace_id" TEXT NOT NULL,
    "provider" "BillingProvider" NOT NULL,
    "customer_id" TEXT,
    "subscription_id" TEXT,
    "status" "SubscriptionStatus" NOT NULL DEFAULT 'none',
    "plan" "BillingPlan",
    "interval" "BillingInterval",
    "current_period_start" TIMESTAMPTZ(3),
    "current_period_end" TIMESTAMPTZ(3),
    "cancel_at_period_end" BOOLEAN NOT NULL DEFAULT false,
    "past_due_since" TIMESTAMPTZ(3),
    "state_as_of" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "billing_accounts_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "billing_events" (
    "provider" "BillingProvider" NOT NULL,
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "workspace_id" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "billing_events_pkey" PRIMARY KEY ("provider", "id")
);

-- CreateTable
CREATE TABLE "link_allowances" (
    "workspace_id" TEXT NOT NULL,
    "cycle_start" TIMESTAMPTZ(3) NOT NULL,
    "used" INTEGER NOT NULL,

    CONSTRAINT "link_allowances_pkey" PRIMARY KEY ("workspace_id", "cycle_start")
);

-- CreateTable
CREATE TABLE "local_billing_sessions" (
    "id" TEXT NOT NULL,
    "kind" "LocalBillingSessionKind" NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "plan" "BillingPlan",
    "interval" "BillingInterval",
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "local_billing_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "billing_accounts_provider_customer_id_key" ON "billing_accounts"("provider", "customer_id");

-- CreateIndex
CREATE INDEX "billing_accounts_subscription_id_idx" ON "billing_accounts"("subscription_id");

-- CreateIndex
CREATE INDEX "local_billing_sessions_workspace_id_idx" ON "local_billing_sessions"("workspace_id");

-- The allowance is only ever spent up to the cap; a negative count would mean a unit given back twice.
ALTER TABLE "link_allowances" ADD CONSTRAINT "link_allowances_used_check" CHECK ("used" >= 0);

-- AddForeignKey
ALTER TABLE "billing_accounts" ADD CONSTRAINT "billing_accounts_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "link_allowances" ADD CONSTRAINT "link_allowances_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "local_billing_sessions" ADD CONSTRAINT "local_billing_sessions_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
