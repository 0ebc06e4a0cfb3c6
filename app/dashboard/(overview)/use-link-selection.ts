import { useState } from "react";

/** The links ticked in the list, by id: what the selection bar acts on. */
export function useLinkSelection(ids: readonly string[]) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  return {
    ids: [...selected],
    size: selected.size,
    has: (id: string) => selected.has(id),
    /** Every link of this page is ticked (and there is one at least). */
    all: ids.length > 0 && ids.every((id) => selected.has(id)),
    toggle(id: string, on: boolean) {
      setSelected((current) => {
        const next = new Set(current);
        if (on) next.add(id);
        else next.delete(id);
        return next;
      });
    },
    setAll: (on: boolean) => setSelected(new Set(on ? ids : [])),
    clear: () => setSelected(new Set()),
  };
}

export type LinkSelection = ReturnType<typeof useLinkSelection>;
