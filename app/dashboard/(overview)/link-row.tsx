import { ActionMenu, MENU_ITEM } from "@/components/ui/action-menu";
import { TagChip } from "@/components/ui/tag-chip";
import type { LinkStatus } from "@/lib/links/status";
import Link from "next/link";

/** One row of the list, as the page prepared it (the creation time already written in the viewer's zone). */
export type ListedLink = {
  id: string;
  shortUrl: string;
  destination: string;
  status: LinkStatus;
  createdAt: string;
  created: string;
  scans: number;
  title: string | null;
  tags: { name: string; color: string }[];
};

/** What a row of the table or a card needs besides its link: its box in the selection, and its menu. */
export type RowParts = {
  /** The person may select links (to archive or tag several); a row then has its box. */
  selectable: boolean;
  isSelected: (id: string) => boolean;
  onSelect: (id: string, on: boolean) => void;
  menu: (link: ListedLink, name: string) => RowMenuProps;
};

/** The short link without its scheme: the row's name. */
export const displayName = (link: ListedLink) => link.shortUrl.replace(/^https?:\/\//, "");

export function Tags({ tags }: { tags: ListedLink["tags"] }) {
  if (tags.length === 0) return null;
  return (
    <ul className="m-0 flex list-none flex-wrap gap-1 p-0" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag.name} className="max-w-full">
          <TagChip name={tag.name} color={tag.color} />
        </li>
      ))}
    </ul>
  );
}

/** The row's box in the selection, named after the link. */
export function SelectBox({ link, name, parts }: { link: ListedLink; name: string; parts: RowParts }) {
  return (
    <input
      type="checkbox"
      className="mt-1 h-4 w-4 shrink-0"
      aria-label={`Select ${name}`}
      checked={parts.isSelected(link.id)}
      onChange={(event) => parts.onSelect(link.id, event.target.checked)}
    />
  );
}

export type RowMenuProps = {
  link: ListedLink;
  name: string;
  archived: boolean;
  canArchive: boolean;
  busy: boolean;
  onCopy: () => void;
  onChange: () => void;
};

/** A row's actions in a menu over the page: each item a real link or button. */
export function RowMenu({ link, name, archived, canArchive, busy, onCopy, onChange }: RowMenuProps) {
  return (
    <ActionMenu label="Actions" name={name}>
      <button type="button" role="menuitem" tabIndex={-1} className={MENU_ITEM} onClick={onCopy}>
        Copy short link
      </button>
      <a role="menuitem" tabIndex={-1} className={MENU_ITEM} href={`/dashboard/links/${link.id}/qr?format=png`} download>
        Download QR code
      </a>
      <Link role="menuitem" tabIndex={-1} className={MENU_ITEM} href={`/dashboard/analytics?link_id=${link.id}`}>
        Analytics
      </Link>
      <Link role="menuitem" tabIndex={-1} className={MENU_ITEM} href={`/dashboard/links/${link.id}#repoint-heading`}>
        Repoint
      </Link>
      {canArchive && (
        <button type="button" role="menuitem" tabIndex={-1} className={MENU_ITEM} disabled={busy} onClick={onChange}>
          {archived ? "Restore" : "Archive"}
        </button>
      )}
    </ActionMenu>
  );
}
