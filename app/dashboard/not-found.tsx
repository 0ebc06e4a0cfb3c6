import { buttonClass, cardClass, mutedClass } from "@/components/ui/styles";
import Link from "next/link";

/** Inside the dashboard's frame: a link, domain or page that is not there, or belongs to another workspace. */
export default function DashboardNotFound() {
  return (
    <section aria-labelledby="not-found-heading" className={cardClass + " space-y-3"}>
      <h1 id="not-found-heading" className="m-0 text-2xl font-bold">
        Nothing here
      </h1>
      <p className="m-0">
        This link, import, domain or page is not in this workspace. It may have been typed wrong, or it belongs to another
        workspace: choose that one with the workspace menu above.
      </p>
      <p className={mutedClass + " m-0"}>Short links themselves keep resolving whatever this page says.</p>
      <div className="flex flex-wrap gap-2">
        <Link href="/dashboard" className={buttonClass.primary + " no-underline"}>
          All links
        </Link>
        <Link href="/dashboard/domains" className={buttonClass.secondary + " no-underline"}>
          Custom domains
        </Link>
      </div>
    </section>
  );
}
