import { StatusBadge } from "@/components/ui/status-badge";
import Link from "next/link";
import { displayName, type ListedLink, RowMenu, type RowParts, SelectBox, Tags } from "./link-row";

/** The actions column stays in view at the scroller's right edge however wide the other columns get. */
const STICKY_END = "sticky right-0 bg-white dark:bg-zinc-950";

/** The list on a wider screen: one row per link, with a box in the heading that selects the whole page. */
export function LinksTable({
  links,
  caption,
  scanDays,
  parts,
  allSelected,
  onSelectAll,
}: {
  links: ListedLink[];
  caption: string;
  scanDays: number;
  parts: RowParts;
  allSelected: boolean;
  onSelectAll: (on: boolean) => void;
}) {
  return (
    // relative: the visually hidden labels in the last column are positioned, and only a positioned scroller clips them
    <div className="relative hidden overflow-x-auto rounded-lg border border-zinc-200 sm:block dark:border-zinc-800">
      <table className="m-0 min-w-full text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-zinc-50 dark:bg-zinc-900">
          <tr>
            {parts.selectable && (
              <th scope="col" className="w-8">
                <input
                  type="checkbox"
                  className="h-4 w-4"
                  aria-label="Select every link on this page"
                  checked={allSelected}
                  onChange={(event) => onSelectAll(event.target.checked)}
                />
              </th>
            )}
            <th scope="col">Short link</th>
            <th scope="col">Title</th>
            <th scope="col">Destination</th>
            <th scope="col">Tags</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col" className="text-right">
              Scans ({scanDays} days)
            </th>
            <th scope="col" className="sticky right-0 bg-zinc-50 dark:bg-zinc-900">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {links.map((link) => {
            const name = displayName(link);
            return (
              <tr key={link.id}>
                {parts.selectable && (
                  <td>
                    <SelectBox link={link} name={name} parts={parts} />
                  </td>
                )}
                <td className="whitespace-nowrap">
                  <Link href={`/dashboard/links/${link.id}`} className="font-medium">
                    {name}
                  </Link>
                </td>
                <td>
                  <div className="w-max max-w-40 break-words">{link.title}</div>
                </td>
                <td>
                  <div className="max-w-40 truncate lg:max-w-64" title={link.destination}>
                    {link.destination}
                  </div>
                </td>
                <td>
                  <div className="max-w-48">
                    <Tags tags={link.tags} />
                  </div>
                </td>
                <td>
                  <StatusBadge status={link.status} />
                </td>
                <td className="whitespace-nowrap">
                  <time dateTime={link.createdAt}>{link.created}</time>
                </td>
                <td className="text-right tabular-nums">{link.scans}</td>
                <td className={STICKY_END}>
                  <RowMenu {...parts.menu(link, name)} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
