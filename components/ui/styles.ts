/** Shared class lists: one look for every control, so spacing and type stay consistent. */
export const buttonClass = {
  primary:
    "inline-flex items-center justify-center gap-2 rounded-md bg-accent px-3.5 py-2 text-sm " +
    "font-medium text-white shadow-sm hover:bg-accent-strong focus-visible:outline-2 " +
    "focus-visible:outline-offset-2 disabled:cursor-not-allowed disabled:opacity-60 dark:bg-blue-500 " +
    "dark:hover:bg-blue-400 dark:text-zinc-950",
  secondary:
    "inline-flex items-center justify-center gap-2 rounded-md border border-zinc-300 bg-white px-3.5 " +
    "py-2 text-sm font-medium text-zinc-900 shadow-sm hover:bg-zinc-50 disabled:cursor-not-allowed " +
    "disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 " +
    "dark:hover:bg-zinc-800",
  danger:
    "inline-flex items-center justify-center gap-2 rounded-md border border-red-300 bg-white px-3.5 " +
    "py-2 text-sm font-medium text-red-800 hover:bg-red-50 disabled:cursor-not-allowed " +
    "disabled:opacity-60 dark:border-red-800 dark:bg-zinc-900 dark:text-red-300 dark:hover:bg-red-950",
  small:
    "inline-flex items-center justify-center gap-1 rounded border border-zinc-300 px-2 py-1 text-xs " +
    "font-medium text-zinc-800 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-200 " +
    "dark:hover:bg-zinc-800",
} as const;

export const inputClass =
  "block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 " +
  "shadow-sm placeholder:text-zinc-500 focus:border-accent focus:outline-2 focus:outline-accent " +
  "dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-400";

export const labelClass = "block text-sm font-medium text-zinc-800 dark:text-zinc-200";

export const cardClass = "rounded-lg border border-zinc-200 bg-white p-5 shadow-sm dark:border-zinc-800 dark:bg-zinc-900";

export const mutedClass = "text-sm text-zinc-600 dark:text-zinc-400";

export const errorClass =
  "rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200";

export const noticeClass =
  "rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 " +
  "dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100";

/** A small rounded label beside a name (a status, a step done); its colour is one of `badgeTone`. */
export const badgeClass = "rounded-full px-2 py-0.5 text-xs font-semibold";

/** The colours of a badge: all is well, something is still to come, something is wrong. */
export const badgeTone = {
  good: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  waiting: "bg-amber-100 text-amber-950 dark:bg-amber-950 dark:text-amber-100",
  bad: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
} as const;
