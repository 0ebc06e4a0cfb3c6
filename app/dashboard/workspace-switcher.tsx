"use client";

import { SelectField } from "@/components/ui/field";
import { usePathname } from "next/navigation";
import { useRef } from "react";
import { switchWorkspaceAction } from "./settings/actions";
import { tabOf } from "./tabs";

type Option = { id: string; label: string };

/**
 * Choosing a workspace switches to it at once, on the same tab (a link's page leads to the other
 * workspace's links). The page keys it by the current workspace, so it is drawn afresh whenever the
 * server acts on another one (after creating, accepting or leaving one).
 */
export function WorkspaceSwitcher({ current, options }: { current: string; options: Option[] }) {
  const form = useRef<HTMLFormElement>(null);
  const tab = tabOf(usePathname()) ?? "/dashboard";
  return (
    <form ref={form} action={switchWorkspaceAction} className="order-last w-full min-w-0 sm:order-none sm:w-auto sm:max-w-full">
      <input type="hidden" name="tab" value={tab} />
      <SelectField
        id="workspace-switcher"
        label="Workspace"
        labelClassName="sr-only"
        help="Choosing a workspace switches to it."
        helpClassName="sr-only"
        name="workspace"
        defaultValue={current}
        controlClassName="py-1.5 sm:w-auto sm:max-w-64"
        onChange={() => form.current?.requestSubmit()}
      >
        {options.map((option) => (
          <option key={option.id} value={option.id}>
            {option.label}
          </option>
        ))}
      </SelectField>
    </form>
  );
}
