import { CopyButton } from "@/components/ui/copy-button";
import { LoadingState } from "@/components/ui/loading-state";
import { StatusBadge } from "@/components/ui/status-badge";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { dashboardContext, foundOrNotFound, requireDashboard } from "@/lib/api/dashboard";
import { describeAccount } from "@/lib/billing/service";
import { shortUrl as shortUrlOf, toLinkView } from "@/lib/links/present";
import { getLink } from "@/lib/links/service";
import { asLinkStatus } from "@/lib/links/status";
import { logoStorage } from "@/lib/logos/store";
import { scanUrl } from "@/lib/qr/artwork";
import { QR_MARGIN, QR_SIZE } from "@/lib/qr/schemas";
import { linkDesign } from "@/lib/qr/service";
import { listTags } from "@/lib/tags/service";
import { listUtmTemplates } from "@/lib/utm/service";
import { can } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import Link from "next/link";
import { Suspense } from "react";
import { viewerZone } from "../../analytics/viewer-zone";
import { dashboardTitle } from "../../page-title";
import { LabelForm } from "./label-form";
import { LinkAnalytics } from "./link-analytics";
import { LinkEditForms } from "./link-edit-forms";
import { LinkHistory } from "./link-history";
import { PasswordForm } from "./password-form";
import { PreviewForm } from "./preview-form";
import { QrDesigner } from "./qr-designer";
import { LinkRouting } from "./routing-editors";
import { ScanLimitForm } from "./scan-limit-form";

/** Titled with the link's short address; a link that is not there gets the plain one (its page answers 404). */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const context = await dashboardContext();
  const link = context ? await getLink(context.principal, (await params).id).catch(() => null) : null;
  return dashboardTitle(link ? shortUrlOf(link).replace(/^https?:\/\//, "") : "Link");
}

const dateFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/**
 * The link is looked up before anything streams, so a link that is not there (or not this
 * workspace's) answers 404 with the dashboard's "Nothing here" page; what takes longer (the
 * account, the saved design, logos, analytics) streams in under its own loading state.
 */
export default async function LinkPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { principal } = await requireDashboard(`/dashboard/links/${id}`);
  const link = await foundOrNotFound(getLink(principal, id));
  const shortUrl = shortUrlOf(link);
  const status = asLinkStatus(link.status);
  return (
    <div className="space-y-6">
      <p className="m-0 text-sm">
        <Link href="/dashboard">← All links</Link>
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="m-0 break-all text-2xl font-bold">{shortUrl.replace(/^https?:\/\//, "")}</h1>
        <CopyButton text={shortUrl} what={shortUrl} />
        <StatusBadge status={status} />
        {link.archivedAt && (
          <span className="rounded-full bg-zinc-200 px-2 py-0.5 text-xs font-semibold dark:bg-zinc-800">Archived</span>
        )}
      </div>
      <dl className={cardClass + " m-0 grid gap-x-6 gap-y-2 sm:grid-cols-[auto_1fr]"}>
        <dt className="font-medium">Destination</dt>
        <dd className="m-0 break-all" data-testid="link-destination">
          {link.destination}
        </dd>
        {link.title && (
          <>
            <dt className="font-medium">Title</dt>
            <dd className="m-0 break-words" data-testid="link-title">
              {link.title}
            </dd>
          </>
        )}
        {link.tags.length > 0 && (
          <>
            <dt className="font-medium">Tags</dt>
            <dd className="m-0 break-words" data-testid="link-tags">
              {link.tags.map(({ tag }) => tag.name).join(", ")}
            </dd>
          </>
        )}
        <dt className="font-medium">Created</dt>
        <dd className="m-0">{dateFormat.format(link.createdAt)} UTC</dd>
        {link.archivedAt && (
          <>
            <dt className="font-medium">Archived</dt>
            <dd className="m-0">{dateFormat.format(link.archivedAt)} UTC — it keeps resolving</dd>
          </>
        )}
      </dl>
      <Suspense fallback={<LoadingState what="the link's tools" heading={false} />}>
        <LinkTools principal={principal} link={link} />
      </Suspense>
    </div>
  );
}

/** Repoint and archive, routing, the QR designer and the link's analytics: the part of its page that streams. */
async function LinkTools({ principal, link }: { principal: Principal; link: Awaited<ReturnType<typeof getLink>> }) {
  const [account, design, ownLogo, workspaceLogo, { templates }, { tags }, { zone }] = await Promise.all([
    describeAccount(principal),
    linkDesign(principal, link.id),
    logoStorage.describe({ kind: "link", linkId: link.id }),
    logoStorage.describe({ kind: "workspace", workspaceId: link.workspaceId }),
    listUtmTemplates(principal),
    listTags(principal),
    viewerZone(),
  ]);
  const shortUrl = shortUrlOf(link);
  const view = toLinkView(link);
  return (
    <>
      <LabelForm
        id={link.id}
        title={view.title}
        tags={view.tags}
        tagNames={tags.map((tag) => tag.name)}
        canEdit={account.can.edit_links}
      />

      <PasswordForm id={link.id} isProtected={view.password_protected} canEdit={account.can.edit_links} />

      <ScanLimitForm id={link.id} limit={view.scan_limit} canEdit={account.can.edit_links} />

      <PreviewForm id={link.id} preview={view.preview} count={view.preview_count} canEdit={account.can.edit_links} />

      <LinkEditForms
        id={link.id}
        destination={link.destination}
        canRepoint={account.can.edit_links}
        canArchive={account.can.archive_links}
        archived={Boolean(link.archivedAt)}
        templates={templates}
      />

      <LinkRouting link={view} canEdit={account.can.edit_links} zone={zone} />

      <section aria-labelledby="qr-heading" className={cardClass}>
        <h2 id="qr-heading" className="mt-0 text-lg">
          QR code
        </h2>
        <p className={mutedClass}>
          The preview changes as you change the options, and the downloads look exactly like it. Save the options to keep them for
          this link&apos;s next downloads. Scans of the code count as QR visits.
        </p>
        <QrDesigner
          linkId={link.id}
          value={scanUrl(shortUrl)}
          bounds={{ size: QR_SIZE, margin: QR_MARGIN }}
          logo={ownLogo ? "link" : workspaceLogo ? "workspace" : "none"}
          logoVersion={(ownLogo ?? workspaceLogo)?.sha256 ?? ""}
          canEditLogo={account.can.edit_links}
          canRemoveLogo={account.can.archive_links}
          design={design}
          canSaveForLink={account.can.archive_links}
          canSaveDefault={can(principal, "links.edit_any")}
        />
      </section>

      <LinkAnalytics principal={principal} linkId={link.id} />

      <LinkHistory principal={principal} linkId={link.id} />
    </>
  );
}
