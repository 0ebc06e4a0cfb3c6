/** Each tag colour the API names, as a chip's background and text (written out whole, for Tailwind to find). */
const COLORS: Record<string, string> = {
  gray: "bg-zinc-200 text-zinc-900 dark:bg-zinc-700 dark:text-zinc-100",
  red: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  orange: "bg-orange-100 text-orange-900 dark:bg-orange-950 dark:text-orange-200",
  yellow: "bg-yellow-100 text-yellow-900 dark:bg-yellow-950 dark:text-yellow-200",
  green: "bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-200",
  teal: "bg-teal-100 text-teal-900 dark:bg-teal-950 dark:text-teal-200",
  blue: "bg-blue-100 text-blue-900 dark:bg-blue-950 dark:text-blue-200",
  purple: "bg-purple-100 text-purple-900 dark:bg-purple-950 dark:text-purple-200",
  pink: "bg-pink-100 text-pink-900 dark:bg-pink-950 dark:text-pink-200",
  brown: "bg-amber-200 text-amber-950 dark:bg-amber-900 dark:text-amber-100",
};

/** A link's tag in its colour; the name is the text, so the colour is never the only sign. */
export function TagChip({ name, color }: { name: string; color: string }) {
  return (
    <span
      className={`inline-block max-w-full truncate rounded-full px-2 py-0.5 text-xs font-medium ${COLORS[color] ?? COLORS.gray}`}
    >
      {name}
    </span>
  );
}
