"use client";

import * as Tooltip from "@radix-ui/react-tooltip";
import { badgeClass, badgeTone } from "./styles";

const STATUSES = {
  0: {
    label: "Active",
    className: badgeTone.good,
    explanation: "Released from quarantine: visits redirect straight away without a live check.",
  },
  1: {
    label: "Quarantine",
    className: badgeTone.waiting,
    explanation:
      "New or repointed: it works now, and each visit runs a live safety check until enough clean checks over enough days release it.",
  },
  2: {
    label: "Abuse",
    className: badgeTone.bad,
    explanation:
      "Blocked after a safety verdict or an operator's review: visitors see a warning page instead of the destination.",
  },
} as const;

/** The link's status, with what it means on hover and keyboard focus. */
export function StatusBadge({ status }: { status: 0 | 1 | 2 }) {
  const { label, className, explanation } = STATUSES[status];
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
