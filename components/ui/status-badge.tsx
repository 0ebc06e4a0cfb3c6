"use client";

import * as Tooltip from "@radix-ui/react-tooltip";
import { STATUS_WORDS } from "./status-labels";
import { badgeClass, badgeTone } from "./styles";

const TONES = { 0: badgeTone.good, 1: badgeTone.waiting, 2: badgeTone.bad } as const;

/** The link's status, with what it means on hover and keyboard focus. */
export function StatusBadge({ status }: { status: 0 | 1 | 2 }) {
  const { label, explanation } = STATUS_WORDS[status];
  const className = TONES[status];
  return (
    <Tooltip.Provider delayDuration={150}>
      <Tooltip.Root>
        <Tooltip.Trigger asChild>
          <button type="button" className={`cursor-help ${badgeClass} ${className}`} aria-label={`${label}: ${explanation}`}>
            {label}
          </button>
        </Tooltip.Trigger>
        <Tooltip.Portal>
          <Tooltip.Content
            sideOffset={4}
            className="z-50 max-w-64 rounded-md bg-zinc-900 px-3 py-2 text-xs text-white shadow-lg dark:bg-zinc-100 dark:text-zinc-900"
          >
            {explanation}
            <Tooltip.Arrow className="fill-zinc-900 dark:fill-zinc-100" />
          </Tooltip.Content>
        </Tooltip.Portal>
      </Tooltip.Root>
    </Tooltip.Provider>
  );
}
