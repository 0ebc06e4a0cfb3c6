import { config } from "@/lib/config";
import type { OutgoingEmail } from "@/lib/email";
import { workspaceInEmail } from "@/lib/workspaces/names";
import type { WorkspaceManagers } from "@/lib/workspaces/store";
import { daysLeft, registrableDomain } from "./lapse";
import type { DomainView } from "./schemas";
import type { ExpiryKind } from "./store";

const dateFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "long", timeStyle: "short", timeZone: "UTC" });

/** "lapses in 7 days", "lapses within a day", "has already lapsed": how far off, in words. */
export function lapseIn(expiresAt: number, now: number): string {
  const days = daysLeft(expiresAt, now);
  if (days === 0) return "has already lapsed";
  if (days === 1) return "lapses within a day";
  return `lapses in ${days === 1 ? "1 day" : `${days} days`}`;
}

/**
 * The warning a verified domain's owners and admins receive 30, 7 and 1 days before its
 * registration or its certificate lapses: what lapses, when, what to do, and that its links keep
 * resolving for every visit that reaches us.
 */
export function expiryEmail(
  domain: DomainView,
  kind: ExpiryKind,
  expiresAt: Date,
  now: number,
  managers: WorkspaceManagers,
): OutgoingEmail {
  const { hostname } = domain;
  const when = `${dateFormat.format(expiresAt)} UTC`;
  const where = `${hostname}, a custom domain of ${workspaceInEmail(managers.workspaceName)} on Permalink`;
  const lapse = lapseIn(expiresAt.getTime(), now);
  const registrable = registrableDomain(hostname) ?? hostname;
  const body =
    kind === "registration"
      ? [
          `The registration of ${registrable} ${lapse} (${when}), according to its registry. ${where}, goes with it: ` +
            `once it lapses, visitors of ${hostname} no longer reach your links.`,
          "",
          `Renew ${registrable} with your registrar (where you bought it) before then; many registrars renew by themselves ` +
            `when auto-renewal is on and the payment card is current. If you renewed it already, nothing more is needed: ` +
            `we look again within a day.`,
        ]
      : [
          `The HTTPS certificate of ${where}, ${lapse} (${when}). Once it lapses, browsers refuse to open links on ` +
            `${hostname} with a warning.`,
          "",
          `Certificates are renewed by themselves well before they lapse, so this one is overdue. The usual causes: the ` +
            `DNS records no longer point to us, or a CAA record forbids our certificate authority. The Domains page says ` +
            `what the last check found.`,
        ];
  const text = [
    ...body,
    "",
    `Nothing has been taken down: every code on ${hostname} still exists and resolves for each visit that reaches us, ` +
      `today and after a renewal.`,
    "",
    `We write 30, 7 and 1 days before a lapse. Where it stands: the dashboard's Domains page, ` +
      `${config().BASE_URL}/dashboard/domains (or GET /api/domains/${domain.id}).`,
  ].join("\n");
  const what = kind === "registration" ? `The domain ${registrable}` : `The certificate of ${hostname}`;
  return { to: managers.addresses, subject: `${what} ${lapse}`, text };
}
