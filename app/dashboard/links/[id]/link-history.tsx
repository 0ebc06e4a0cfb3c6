import { STATUS_WORDS } from "@/components/ui/status-labels";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { linkHistoryPage } from "@/lib/links/history";
import type { HistoryEntryView, RecordedLink } from "@/lib/links/history-schemas";
import type { Principal } from "@/lib/workspaces/types";

const SHOWN = 20;
const dateFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

const DOORS: Record<HistoryEntryView["via"], string> = {
  dashboard: "in the dashboard",
  api_key: "through the API",
  session_token: "through the API",
  oauth: "through a connected app",
  mcp: "through an AI agent",
  bulk: "in a bulk create",
  import: "by an import",
  machine_payment: "with a machine payment",
  operator: "",
  service: "",
};

function who(entry: HistoryEntryView): string {
  const { by } = entry;
  if (by.kind === "member") return by.email ?? "a former member";
  if (by.kind === "app") return `${by.app ? `“${by.app.name}”` : "a connected app"} for ${by.email ?? "a former member"}`;
  if (by.kind === "api_key") return "the workspace's API key";
  if (by.kind === "machine_account") return "the machine account that paid";
  if (by.kind === "operator") return "the service's operator";
  return "Permalink itself";
}

function statusWord(status: number): string {
  return STATUS_WORDS[status as 0 | 1 | 2]?.label ?? String(status);
}

/** What one change did, field by field, in the words of the link's page. */
function whatChanged(entry: HistoryEntryView): string[] {
  const { before, after } = entry;
  if (entry.change === "created" || !before) return [`Created, pointing at ${after.destination}`];
  if (entry.change === "archived") return ["Archived (it keeps resolving)"];
  if (entry.change === "restored") return ["Restored to the main list"];
  if (entry.change === "repoint_applied") return [`Scheduled change applied: now pointing at ${after.destination}`];
  if (entry.change === "scan_limit_reached") return [`Scan limit reached: now pointing at ${after.destination}`];
  if (entry.change === "status_changed") return [`${statusWord(before.status)} → ${statusWord(after.status)}`];
  const lines = entry.changed.flatMap((field) => fieldLine(field, before, after));
  return lines.length > 0 ? lines : ["Saved with no change"];
}

function fieldLine(field: HistoryEntryView["changed"][number], before: RecordedLink, after: RecordedLink): string[] {
  switch (field) {
    case "destination":
      return [`Destination changed from ${before.destination} to ${after.destination}`];
    case "title":
      return [after.title ? `Title set to “${after.title}”` : "Title removed"];
    case "tags":
      return [after.tags.length > 0 ? `Tags set to ${after.tags.join(", ")}` : "Tags removed"];
    case "rules":
      return [after.rules.length > 0 ? `Routing rules changed (${after.rules.length} now)` : "Routing rules removed"];
    case "schedule":
      return [
        after.schedule.length > 0 ? `Scheduled changes updated (${after.schedule.length} to come)` : "Scheduled changes removed",
      ];
    case "scan_limit":
      return [
        after.scan_limit
          ? `Scan limit set: after ${after.scan_limit.after} scans, to ${after.scan_limit.destination}`
          : "Scan limit removed",
      ];
    case "password":
      if (!before.password_protected) return ["Password set"];
      return [after.password_protected ? "Password changed" : "Password removed"];
    case "status":
      return [`${statusWord(before.status)} → ${statusWord(after.status)}`];
    default:
      // archived_at and password_protected are told by their own changes above.
      return [];
  }
}

/** The link's changes, newest first: what, who, how and when (the history the API and MCP serve). */
export async function LinkHistory({ principal, linkId }: { principal: Principal; linkId: string }) {
  const { entries, next_cursor } = await linkHistoryPage(principal, linkId, { limit: SHOWN });
  return (
    <section aria-labelledby="link-history-heading" className={cardClass}>
      <h2 id="link-history-heading" className="mt-0 text-lg">
        History
      </h2>
      <p className={mutedClass}>
        Every change to this link, as it was saved; nothing here can be edited or removed.
        {next_cursor && ` The ${SHOWN} most recent changes are shown.`}
      </p>
      <ol className="m-0 list-none space-y-3 p-0" data-testid="link-history">
        {entries.map((entry) => (
          <li
            key={`${entry.at}-${entry.change}-${whatChanged(entry).join()}`}
            className="border-l-2 border-zinc-300 pl-3 dark:border-zinc-700"
          >
            <p className="m-0 break-words font-medium" data-testid="history-change">
              {whatChanged(entry).join("; ")}
            </p>
            <p className={`${mutedClass} m-0`}>
              {dateFormat.format(entry.at)} UTC · {who(entry)} {DOORS[entry.via]}
            </p>
          </li>
        ))}
      </ol>
    </section>
  );
}
