import { scanRetentionJob } from "@/lib/analytics/jobs";
import { domainCheckJob, domainExpiryJob } from "@/lib/domains/jobs";
import { escrowSnapshotJob } from "@/lib/escrow/jobs";
import { scheduledRepointJob } from "@/lib/links/jobs";
import { oauthCleanupJob } from "@/lib/oauth/jobs";
import { recheckJob } from "@/lib/resolution/jobs";
import type { Job } from "@/lib/schedule";
import { webhookDeliveryJob } from "@/lib/webhooks/jobs";

/** Every scheduled job: the self-hosted server starts each; on Vercel, vercel.json's crons call their routes. */
export const JOBS: readonly Job[] = [
  recheckJob,
  domainCheckJob,
  domainExpiryJob,
  scanRetentionJob,
  webhookDeliveryJob,
  scheduledRepointJob,
  escrowSnapshotJob,
  oauthCleanupJob,
];
