import { cardClass, mutedClass } from "@/components/ui/styles";
import { requireDashboard } from "@/lib/api/dashboard";
import { SCOPE_WORDING } from "@/lib/http/scopes";
import { listConnectedApps } from "@/lib/oauth/service";
import { can } from "@/lib/workspaces/permissions";
import { dashboardTitle } from "../page-title";
import { RevokeApp } from "./revoke-app";

export const generateMetadata = () => dashboardTitle("Connected apps");

const dateFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** The apps (agents) connected to this workspace: who connected each, what it may do, when it was last used; disconnect ends it at once. */
export default async function ConnectedAppsPage() {
  const { principal } = await requireDashboard("/dashboard/apps");
  const { grants } = await listConnectedApps(principal);
  return (
    <div className="space-y-6">
      <h1 className="m-0 text-2xl font-bold">Connected apps</h1>
      <p className={mutedClass + " m-0"}>
        Apps and AI agents you or your teammates allowed to use this workspace.{" "}
        {can(principal, "apps.manage")
          ? "You see every one, and can disconnect any."
          : "You see the ones you connected; an owner or admin sees them all."}{" "}
        Disconnecting one stops it at once.
      </p>
      {grants.length === 0 ? (
        <p className={cardClass + " m-0"}>No apps are connected to this workspace.</p>
      ) : (
        <ul className="m-0 list-none space-y-4 p-0">
          {grants.map((grant) => (
            <li key={grant.id} className={cardClass}>
              <div className="flex flex-wrap items-start justify-between gap-3">
                <div className="min-w-0 space-y-1">
                  <h2 className="m-0 break-words text-lg">{grant.app.name}</h2>
                  {grant.app.uri && <p className={mutedClass + " m-0 break-all"}>Says it is from {grant.app.uri}</p>}
                </div>
                <RevokeApp id={grant.id} name={grant.app.name} />
              </div>
              <dl className="mb-0 mt-3 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
                <dt className="font-medium">Connected by</dt>
                <dd className="m-0 break-all">{grant.connected_by ?? "a member"}</dd>
                <dt className="font-medium">Workspace</dt>
                <dd className="m-0">{grant.workspace.name}</dd>
                <dt className="font-medium">Connected</dt>
                <dd className="m-0">{dateFormat.format(grant.created_at)} UTC</dd>
                <dt className="font-medium">Last used</dt>
                <dd className="m-0">{grant.last_used_at ? `${dateFormat.format(grant.last_used_at)} UTC` : "not yet"}</dd>
                <dt className="font-medium">It may</dt>
                <dd className="m-0">
                  <ul className="m-0 pl-5">
                    {grant.scopes.map((scope) => (
                      <li key={scope}>{SCOPE_WORDING[scope]}</li>
                    ))}
                  </ul>
                </dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
