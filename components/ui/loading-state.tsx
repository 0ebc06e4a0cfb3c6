/**
 * What a dashboard page shows while the server prepares it: a heading-sized bar and a few card
 * shapes, with one sentence for screen readers, so a slow click never looks dead. Without
 * `heading`, it stands in for the slow part of a page whose heading is already there.
 */
export function LoadingState({ what, heading = true }: { what: string; heading?: boolean }) {
  return (
    <div className="space-y-6" aria-busy="true">
      <p role="status" className="sr-only">
        Loading {what}…
      </p>
      {heading && <div aria-hidden="true" className="h-8 w-48 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />}
      {[0, 1, 2].map((card) => (
        <div
          key={card}
          aria-hidden="true"
          className="h-28 animate-pulse rounded-lg border border-zinc-200 bg-zinc-100 dark:border-zinc-800 dark:bg-zinc-900"
        />
      ))}
    </div>
  );
}
