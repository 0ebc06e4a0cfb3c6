import { scanRetentionJob } from "@/lib/analytics/jobs";
import { domainCheckJob } from "@/lib/domains/jobs";
import { escrowSnapshotJob } from "@/lib/escrow/jobs";
import { scheduledRepointJob } from "@/lib/links/jobs";
import { recheckJob } from "@/lib/resolution/jobs";
import type { Job } from "@/lib/schedule";
import { webhookDeliveryJob } from "@/lib/webhooks/jobs";

/** Every scheduled job: the self-hosted server starts each; on Vercel, vercel.json's crons call their routes. */
export const JOBS: readonly Job[] = [
  recheckJob,
  domainCheckJob,
  scanRetentionJob,
  webhookDeliveryJob,
  scheduledRepointJob,
  escrowSnapshotJob,
];
