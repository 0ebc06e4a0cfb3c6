import { clock } from "@/lib/clock";
import { sendEmail } from "@/lib/email";
import { DomainError } from "@/lib/http/errors";
import { log } from "@/lib/log";
import { findWorkspaceManagers } from "@/lib/workspaces/store";
import { brokenDomainEmail } from "./failure-email";
import { toDomainView } from "./present";
import type { DomainRow } from "./store";
import * as store from "./store";

/**
 * Tells the workspace's owners and admins, once per failure, that a verified domain's DNS no
 * longer points here (hostname_status misconfigured). The notice is claimed in the database first
 * (store.claimFailureNotice), so however many checks find the failure, one message goes out; a
 * check that finds the domain right again ends the failure (store.recordCheck), so the next one
 * is told too. The message is sent with no transaction open (a slow mail server must not hold
 * database connections); if it cannot be sent the claim is given back and the next check, a few
 * minutes later on the failing domain's back-off, tries again. True when a message went out.
 */
export async function noticeBrokenDomain(row: DomainRow): Promise<boolean> {
  if (row.hostnameStatus !== "misconfigured" || row.noticeSentAt !== null) return false;
  const managers = await findWorkspaceManagers(row.workspaceId);
  if (!managers || managers.addresses.length === 0) return false;
  const claimedAt = new Date(clock().now());
  const claimed = await store.claimFailureNotice(row.id, claimedAt);
  if (!claimed) return false;
  try {
    await sendEmail(brokenDomainEmail(toDomainView(claimed), managers));
    return true;
  } catch (error) {
    await store.releaseFailureNotice(row.id, claimedAt);
    // The mail server's refusal (or no SMTP_URL in production) is expected now and then; anything else is
    // a bug. Either way the run goes on.
    if (error instanceof DomainError)
      log().warn(
        { domain: row.id, detail: error.message },
        "the notice of a custom domain whose DNS broke was not sent; the next check tries again",
      );
    else
      log().error(
        { err: error, domain: row.id },
        "the notice of a custom domain whose DNS broke failed; the next check tries again",
      );
    return false;
  }
}
