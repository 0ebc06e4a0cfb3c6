"use client";

import { Button } from "@/components/ui/button";
import { errorClass, noticeClass } from "@/components/ui/styles";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { changeLinksAction, tagLinksAction } from "../links/actions";
import { LinkCards } from "./link-cards";
import type { ListedLink, RowParts } from "./link-row";
import { LinksTable } from "./links-table";
import { SelectionBar } from "./selection-bar";
import { useLinkSelection } from "./use-link-selection";

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

/**
 * The workspace's links: the one component that draws the list (cards on a phone, the table on
 * wider screens), its row menus and its selection, and says what the last action did.
 */
export function LinksList({ links, caption, archived, canArchive, scanDays, tagNames }: Props) {
  const router = useRouter();
  const selection = useLinkSelection(links.map((link) => link.id));
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [pending, startTransition] = useTransition();
  const selectable = canArchive;

  function change(ids: string[], what: "archive" | "restore") {
    setOutcome(null);
    startTransition(async () => {
      const result = await changeLinksAction(ids, what);
      setOutcome(
        result.ok
          ? { ok: true, text: result.value, undo: what === "archive" ? ids : undefined }
          : { ok: false, text: result.error },
      );
      selection.clear();
      router.refresh();
    });
  }

  function retag(tag: string, change: "add" | "remove") {
    setOutcome(null);
    startTransition(async () => {
      const result = await tagLinksAction(selection.ids, tag, change);
      setOutcome(result.ok ? { ok: true, text: result.value } : { ok: false, text: result.error });
      if (result.ok) selection.clear();
      router.refresh();
    });
  }

  async function copy(link: ListedLink) {
    await navigator.clipboard.writeText(link.shortUrl);
    setOutcome({ ok: true, text: `Copied ${link.shortUrl}` });
  }

  const parts: RowParts = {
    selectable,
    isSelected: selection.has,
    onSelect: selection.toggle,
    menu: (link, name) => ({
      link,
      name,
      archived,
      canArchive,
      busy: pending,
      onCopy: () => void copy(link),
      onChange: () => change([link.id], archived ? "restore" : "archive"),
    }),
  };

  return (
    // While the selection's bar covers the foot of a phone's screen, the page makes room for it.
    <div className={"space-y-3" + (selection.size > 0 ? " pb-32 sm:pb-0" : "")}>
      {selectable && (
        <SelectionBar
          selection={selection}
          archived={archived}
          tagNames={tagNames}
          pending={pending}
          onChange={change}
          onRetag={retag}
        />
      )}
      {outcome && (
        <div className={(outcome.ok ? noticeClass : errorClass) + " m-0 flex flex-wrap items-center gap-2"}>
          <p role={outcome.ok ? "status" : "alert"} className="m-0">
            {outcome.text}
          </p>
          {outcome.undo && (
            <Button variant="small" disabled={pending} onClick={() => change(outcome.undo!, "restore")}>
              Undo
            </Button>
          )}
        </div>
      )}
      <LinkCards links={links} caption={caption} scanDays={scanDays} parts={parts} />
      <LinksTable
        links={links}
        caption={caption}
        scanDays={scanDays}
        parts={parts}
        allSelected={selection.all}
        onSelectAll={selection.setAll}
      />
    </div>
  );
}
