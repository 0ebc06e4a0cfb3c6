import { LoadingState } from "@/components/ui/loading-state";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { foundOrNotFound, requireDashboard } from "@/lib/api/dashboard";
import { describeAccount } from "@/lib/billing/service";
import type { ImportView } from "@/lib/imports/schemas";
import { getImport, listImports } from "@/lib/imports/service";
import { verifiedDomains } from "@/lib/links/browse";
import { can } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import Link from "next/link";
import { Suspense } from "react";
import { viewerZone } from "../analytics/viewer-zone";
import { dashboardTitle } from "../page-title";
import { FollowedImport, ImportForm } from "./import-form";

export const generateMetadata = () => dashboardTitle("Import");

/**
 * An import named in the address (`?id=`) is looked up before anything streams, so one that is not
 * this workspace's answers 404 with the dashboard's "Nothing here" page; the form and the earlier
 * imports stream in under their own loading state.
 */
export default async function ImportsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { principal } = await requireDashboard("/dashboard/imports");
  const { id } = await searchParams;
  const shown = typeof id === "string" ? await foundOrNotFound(getImport(principal, id)) : null;
  return (
    <div className="space-y-6">
      <h1 className="m-0 text-2xl font-bold">Import links</h1>
      <p className={mutedClass}>
        Moving from Bitly, Dub, Rebrandly, Short.io, Shlink or Kutt? Export your links there and bring the file here. Links on a
        custom domain you have verified here keep their exact codes, so everything already printed keeps working once the domain
        points at us. Check the file first: nothing is created until you import it.
      </p>
      <Suspense fallback={<LoadingState what="your imports" heading={false} />}>
        <ImportTools principal={principal} shown={shown} />
      </Suspense>
    </div>
  );
}

/** The form, the import the address names, and the earlier imports: the part of the page that streams. */
async function ImportTools({ principal, shown }: { principal: Principal; shown: ImportView | null }) {
  const [domains, account, { imports }, { zone }] = await Promise.all([
    verifiedDomains(principal),
    describeAccount(principal),
    listImports(principal),
    viewerZone(),
  ]);
  const when = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeStyle: "short", timeZone: zone });
  const mayImport = can(principal, "links.edit_any");
  return (
    <>
      {mayImport ? (
        <section aria-labelledby="import-heading" className={cardClass}>
          <h2 id="import-heading" className="mt-0 text-lg">
            Bring in a file
          </h2>
          <ImportForm domains={domains} canImport={account.active} />
        </section>
      ) : (
        <p className={cardClass + " m-0"}>Only the workspace&apos;s owners and admins can import links.</p>
      )}
      {shown && (
        <section aria-label="Chosen import" className={cardClass}>
          <FollowedImport initial={shown} canCancel={mayImport} />
        </section>
      )}
      <section aria-labelledby="past-imports-heading" className="space-y-3">
        <h2 id="past-imports-heading" className="m-0 text-lg">
          Earlier imports and checks
        </h2>
        {imports.length === 0 ? (
          <p className={mutedClass + " m-0"}>None yet.</p>
        ) : (
          <ul className="m-0 list-none space-y-2 p-0">
            {imports.map((job) => (
              <li key={job.id} className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
                <Link href={`/dashboard/imports?id=${job.id}`} className="font-medium">
                  {job.dry_run ? "Check" : "Import"} of{" "}
                  <time dateTime={new Date(job.created_at).toISOString()}>{when.format(job.created_at)}</time>
                </Link>
                <p className={mutedClass + " m-0"}>{summary(job)}</p>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

function summary(job: ImportView): string {
  const count = (value: number) => value.toLocaleString("en-AU");
  const rows = `${count(job.total)} ${job.total === 1 ? "row" : "rows"}`;
  if (job.status === "queued" || job.status === "running") return `${rows}: ${count(job.processed)} handled so far.`;
  if (job.status === "cancelling") return `${rows}: cancelling after ${count(job.processed)}.`;
  if (job.status === "failed") return `${rows}: stopped after ${count(job.processed)}.`;
  if (job.status === "cancelled") return `${rows}: cancelled after ${count(job.processed)}.`;
  const created = job.dry_run ? "would be created" : "created";
  const repeated = job.merged > 0 ? `, ${count(job.merged)} repeating an earlier row` : "";
  return `${rows}: ${count(job.created)} ${created}, ${count(job.kept)} already here${repeated}, ${count(job.failed)} with a problem.`;
}
