"use client";

import { useState, useTransition } from "react";
import { TagChip } from "@/components/ui/tag-chip";
import { errorClass, inputClass, noticeClass } from "@/components/ui/styles";
import type { TagView } from "@/lib/tags/schemas";
import { recolourTagAction } from "./actions";

/** The workspace's tags, each with its colour to change among `colors`; the links list shows them in these colours. */
export function TagColours({ tags, colors }: { tags: TagView[]; colors: readonly string[] }) {
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const [pending, startTransition] = useTransition();
  function recolour(id: string, color: string) {
    startTransition(async () => {
      const result = await recolourTagAction(id, color);
      setOutcome(result.ok ? { ok: true, text: result.value } : { ok: false, text: result.error });
    });
  }
  return (
    <div className="space-y-3">
      <ul className="m-0 grid list-none gap-2 p-0 sm:grid-cols-2 lg:grid-cols-3">
        {tags.map((tag) => (
          <li key={tag.id} className="flex items-center justify-between gap-2">
            <TagChip name={tag.name} color={tag.color} />
            <label className="sr-only" htmlFor={`tag-colour-${tag.id}`}>
              Colour of {tag.name}
            </label>
            <select
              id={`tag-colour-${tag.id}`}
              className={inputClass + " w-32"}
              defaultValue={tag.color}
              disabled={pending}
              onChange={(event) => recolour(tag.id, event.target.value)}
            >
              {colors.map((color) => (
                <option key={color} value={color}>
                  {color[0]!.toUpperCase() + color.slice(1)}
                </option>
              ))}
            </select>
          </li>
        ))}
      </ul>
      {outcome && (
        <p role={outcome.ok ? "status" : "alert"} className={(outcome.ok ? noticeClass : errorClass) + " m-0"}>
          {outcome.text}
        </p>
      )}
    </div>
  );
}
