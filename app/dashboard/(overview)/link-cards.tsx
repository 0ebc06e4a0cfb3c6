import { StatusBadge } from "@/components/ui/status-badge";
import { mutedClass } from "@/components/ui/styles";
import Link from "next/link";
import { displayName, type ListedLink, RowMenu, type RowParts, SelectBox, Tags } from "./link-row";

/** The list on a phone: one card per link. */
export function LinkCards({
  links,
  caption,
  scanDays,
  parts,
}: {
  links: ListedLink[];
  caption: string;
  scanDays: number;
  parts: RowParts;
}) {
  return (
    <ul className="m-0 list-none space-y-2 p-0 sm:hidden" aria-label={caption}>
      {links.map((link) => {
        const name = displayName(link);
        return (
          <li key={link.id} className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
            <div className="flex items-start gap-2">
              {parts.selectable && <SelectBox link={link} name={name} parts={parts} />}
              <div className="min-w-0 grow space-y-1">
                <div className="flex flex-wrap items-center gap-2">
                  <Link href={`/dashboard/links/${link.id}`} className="break-all font-medium">
                    {name}
                  </Link>
                  <StatusBadge status={link.status} />
                </div>
                {link.title && <p className="m-0 break-words text-sm font-medium">{link.title}</p>}
                <p className="m-0 truncate text-sm" title={link.destination}>
                  {link.destination}
                </p>
                <Tags tags={link.tags} />
                <p className={mutedClass + " m-0"}>
                  <span className="tabular-nums">{link.scans}</span> {link.scans === 1 ? "scan" : "scans"} in {scanDays} days ·
                  created <time dateTime={link.createdAt}>{link.created}</time>
                </p>
              </div>
              <RowMenu {...parts.menu(link, name)} />
            </div>
          </li>
        );
      })}
    </ul>
  );
}
