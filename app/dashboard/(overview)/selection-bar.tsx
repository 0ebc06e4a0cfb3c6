"use client";

import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { Checkbox } from "@/components/ui/input";
import { useState } from "react";
import type { LinkSelection } from "./use-link-selection";

/**
 * What to do with the selected links: archive or restore them all, or add or remove a tag on
 * each. On a phone it waits until something is selected, then stays in reach at the bottom of the
 * screen while the person scrolls the cards; wider screens keep it in one row above the table.
 */
export function SelectionBar({
  selection,
  archived,
  tagNames,
  pending,
  onChange,
  onRetag,
}: {
  selection: LinkSelection;
  archived: boolean;
  /** The workspace's tags, offered as the tag is typed. */
  tagNames: string[];
  pending: boolean;
  onChange: (ids: string[], what: "archive" | "restore") => void;
  onRetag: (tag: string, change: "add" | "remove") => void;
}) {
  const [tag, setTag] = useState("");
  const bulk = archived ? "restore" : "archive";
  const none = selection.size === 0;
  return (
    <div className="flex flex-wrap items-center gap-3" role="group" aria-label="Selected links">
      <Checkbox
        label="All on this page"
        className="flex items-center gap-2 text-sm sm:hidden"
        inputClassName="h-4 w-4"
        checked={selection.all}
        onChange={(event) => selection.setAll(event.target.checked)}
      />
      <div
        data-testid="selection-actions"
        className={
          (none ? "hidden " : "fixed inset-x-0 bottom-0 z-20 flex ") +
          "flex-wrap items-center gap-2 border-t border-zinc-200 bg-white p-3 shadow-lg dark:border-zinc-800 dark:bg-zinc-900 " +
          "sm:static sm:z-auto sm:flex sm:gap-3 sm:border-0 sm:bg-transparent sm:p-0 sm:shadow-none sm:dark:bg-transparent"
        }
      >
        <span className="text-sm" aria-live="polite">
          {none ? `Select links to ${bulk} or tag several at once.` : `${selection.size} selected`}
        </span>
        <Button disabled={none || pending} onClick={() => onChange(selection.ids, bulk)}>
          {archived ? "Restore selected" : "Archive selected"}
        </Button>
        <div className="flex w-full flex-wrap items-center gap-2 sm:w-auto">
          <TextField
            id="bulk-tag"
            label="Tag"
            labelClassName="text-sm"
            className="contents"
            controlClassName="w-auto min-w-0 flex-1 sm:w-36 sm:flex-none"
            list="bulk-tag-names"
            value={tag}
            maxLength={40}
            onChange={(event) => setTag(event.target.value)}
          />
          <datalist id="bulk-tag-names">
            {tagNames.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
          {(["add", "remove"] as const).map((change) => (
            <Button key={change} disabled={none || tag.trim() === "" || pending} onClick={() => onRetag(tag, change)}>
              {change === "add" ? "Add tag" : "Remove tag"}
            </Button>
          ))}
        </div>
      </div>
    </div>
  );
}
