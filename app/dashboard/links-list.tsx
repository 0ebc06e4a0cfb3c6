"use client";

import { ActionMenu, MENU_ITEM } from "@/components/ui/action-menu";
import { StatusBadge } from "@/components/ui/status-badge";
import { buttonClass, errorClass, inputClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { TagChip } from "@/components/ui/tag-chip";
import type { LinkStatus } from "@/lib/links/status";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { changeLinksAction, tagLinksAction } from "./links/actions";

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

type Props = {
  links: ListedLink[];
  caption: string;
  archived: boolean;
  /** The person may archive and restore links here (their own at least); the server still decides each one. */
  canArchive: boolean;
  scanDays: number;
  /** The workspace's tags, offered when tagging the selected links. */
  tagNames: string[];
};

/** What the last action did; an archive can be undone from the notice itself. */
type Outcome = { ok: boolean; text: string; undo?: string[] } | null;

/** The workspace's links: the one component that draws the list, its row menus and its selection. */
export function LinksList({ links, caption, archived, canArchive, scanDays, tagNames }: Props) {
  const router = useRouter();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [pending, startTransition] = useTransition();
  const [tag, setTag] = useState("");
  const selectable = canArchive;
  const bulk = archived ? "restore" : "archive";
  const allSelected = links.length > 0 && links.every((link) => selected.has(link.id));

  function toggle(id: string, on: boolean) {
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  function change(ids: string[], what: "archive" | "restore") {
    setOutcome(null);
    startTransition(async () => {
      const result = await changeLinksAction(ids, what);
      setOutcome(
        result.ok
          ? { ok: true, text: result.value, undo: what === "archive" ? ids : undefined }
          : { ok: false, text: result.error },
      );
      setSelected(new Set());
      router.refresh();
    });
  }

  function retag(change: "add" | "remove") {
    setOutcome(null);
    startTransition(async () => {
      const result = await tagLinksAction([...selected], tag, change);
      setOutcome(result.ok ? { ok: true, text: result.value } : { ok: false, text: result.error });
      if (result.ok) setSelected(new Set());
      router.refresh();
    });
  }

  function selectAll(on: boolean) {
    setSelected(new Set(on ? links.map((link) => link.id) : []));
  }

  const menuProps = (link: ListedLink, name: string) => ({
    link,
    name,
    archived,
    canArchive,
    busy: pending,
    onCopy: () => void copy(link),
    onChange: () => change([link.id], bulk),
  });

  async function copy(link: ListedLink) {
    await navigator.clipboard.writeText(link.shortUrl);
    setOutcome({ ok: true, text: `Copied ${link.shortUrl}` });
  }

  return (
    // While the selection's bar covers the foot of a phone's screen, the page makes room for it.
    <div className={"space-y-3" + (selected.size > 0 ? " pb-32 sm:pb-0" : "")}>
      {selectable && (
        <div className="flex flex-wrap items-center gap-3" role="group" aria-label="Selected links">
          <label className="flex items-center gap-2 text-sm sm:hidden">
            <input
              type="checkbox"
              className="h-4 w-4"
              checked={allSelected}
              onChange={(event) => selectAll(event.target.checked)}
            />
            All on this page
          </label>
          {/*
            On a phone what to do with the selection waits until something is selected, then stays in
            reach at the bottom of the screen while the person scrolls the cards; wider screens keep it
            in one row above the table.
          */}
          <div
            data-testid="selection-actions"
            className={
              (selected.size === 0 ? "hidden " : "fixed inset-x-0 bottom-0 z-20 flex ") +
              "flex-wrap items-center gap-2 border-t border-zinc-200 bg-white p-3 shadow-lg dark:border-zinc-800 dark:bg-zinc-900 " +
              "sm:static sm:z-auto sm:flex sm:gap-3 sm:border-0 sm:bg-transparent sm:p-0 sm:shadow-none sm:dark:bg-transparent"
            }
          >
            <span className="text-sm" aria-live="polite">
              {selected.size === 0 ? `Select links to ${bulk} or tag several at once.` : `${selected.size} selected`}
            </span>
            <button
              type="button"
              className={buttonClass.secondary}
              disabled={selected.size === 0 || pending}
              onClick={() => change([...selected], bulk)}
            >
              {archived ? "Restore selected" : "Archive selected"}
            </button>
            <div className="flex w-full flex-wrap items-center gap-2 sm:w-auto">
              <label htmlFor="bulk-tag" className="text-sm">
                Tag
              </label>
              <input
                id="bulk-tag"
                list="bulk-tag-names"
                value={tag}
                maxLength={40}
                onChange={(event) => setTag(event.target.value)}
                className={inputClass + " w-auto min-w-0 flex-1 sm:w-36 sm:flex-none"}
              />
              <datalist id="bulk-tag-names">
                {tagNames.map((name) => (
                  <option key={name} value={name} />
                ))}
              </datalist>
              {(["add", "remove"] as const).map((change) => (
                <button
                  key={change}
                  type="button"
                  className={buttonClass.secondary}
                  disabled={selected.size === 0 || tag.trim() === "" || pending}
                  onClick={() => retag(change)}
                >
                  {change === "add" ? "Add tag" : "Remove tag"}
                </button>
              ))}
            </div>
          </div>
        </div>
      )}
      {outcome && (
        <div className={(outcome.ok ? noticeClass : errorClass) + " m-0 flex flex-wrap items-center gap-2"}>
          <p role={outcome.ok ? "status" : "alert"} className="m-0">
            {outcome.text}
          </p>
          {outcome.undo && (
            <button
              type="button"
              className={buttonClass.small}
              disabled={pending}
              onClick={() => change(outcome.undo!, "restore")}
            >
              Undo
            </button>
          )}
        </div>
      )}
      {/* A phone gets one card per link; wider screens the table. */}
      <ul className="m-0 list-none space-y-2 p-0 sm:hidden" aria-label={caption}>
        {links.map((link) => {
          const name = displayName(link);
          return (
            <li key={link.id} className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
              <div className="flex items-start gap-2">
                {selectable && <SelectBox name={name} checked={selected.has(link.id)} onChange={(on) => toggle(link.id, on)} />}
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
                <RowMenu {...menuProps(link, name)} />
              </div>
            </li>
          );
        })}
      </ul>
      {/* relative: the visually hidden labels in the last column are positioned, and only a positioned scroller clips them */}
      <div className="relative hidden overflow-x-auto rounded-lg border border-zinc-200 sm:block dark:border-zinc-800">
        <table className="m-0 min-w-full text-sm">
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-zinc-50 dark:bg-zinc-900">
            <tr>
              {selectable && (
                <th scope="col" className="w-8">
                  <input
                    type="checkbox"
                    className="h-4 w-4"
                    aria-label="Select every link on this page"
                    checked={allSelected}
                    onChange={(event) => selectAll(event.target.checked)}
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
                  {selectable && (
                    <td>
                      <SelectBox name={name} checked={selected.has(link.id)} onChange={(on) => toggle(link.id, on)} />
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
                    <RowMenu {...menuProps(link, name)} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Tags({ tags }: { tags: ListedLink["tags"] }) {
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

/** The actions column stays in view at the scroller's right edge however wide the other columns get. */
const STICKY_END = "sticky right-0 bg-white dark:bg-zinc-950";

const displayName = (link: ListedLink) => link.shortUrl.replace(/^https?:\/\//, "");

function SelectBox({ name, checked, onChange }: { name: string; checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <input
      type="checkbox"
      className="mt-1 h-4 w-4 shrink-0"
      aria-label={`Select ${name}`}
      checked={checked}
      onChange={(event) => onChange(event.target.checked)}
    />
  );
}

/** A row's actions in a menu over the page: each item a real link or button. */
function RowMenu({
  link,
  name,
  archived,
  canArchive,
  busy,
  onCopy,
  onChange,
}: {
  link: ListedLink;
  name: string;
  archived: boolean;
  canArchive: boolean;
  busy: boolean;
  onCopy: () => void;
  onChange: () => void;
}) {
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
