import { Button } from "@/components/ui/button";
import { OneFieldForm } from "@/components/ui/one-field-form";
import { buttonClass, cardClass, mutedClass } from "@/components/ui/styles";
import { requireDashboard } from "@/lib/api/dashboard";
import { config } from "@/lib/config";
import { can } from "@/lib/workspaces/permissions";
import { describeWorkspaces } from "@/lib/workspaces/service";
import Link from "next/link";
import { dashboardTitle } from "../page-title";
import { createWorkspaceAction, renameWorkspaceAction, signOutEverywhereAction } from "./actions";
import { ApiKeyPanel } from "./api-key-panel";

export const generateMetadata = () => dashboardTitle("API key & workspace");

const dateFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeZone: "UTC" });

export default async function SettingsPage() {
  const { principal } = await requireDashboard("/dashboard/settings");
  const keysUrl = `${config().BASE_URL}/.well-known/permalink-escrow.json`;
  const { workspace } = await describeWorkspaces(principal);
  const key = workspace.api_key;
  return (
    <div className="space-y-6">
      <h1 className="m-0 text-2xl font-bold">API key &amp; workspace</h1>
      <p className="m-0 text-sm">
        <Link href="/dashboard/settings/webhooks">Webhooks</Link>: tell your own systems when something happens to your links.
      </p>
      <section aria-labelledby="workspace-heading" className={cardClass}>
        <h2 id="workspace-heading" className="mt-0 text-lg">
          Workspace
        </h2>
        <dl className="m-0 grid gap-x-6 gap-y-2 sm:grid-cols-[auto_1fr]">
          <dt className="font-medium">Name</dt>
          <dd className="m-0">{workspace.name}</dd>
          <dt className="font-medium">Kind</dt>
          <dd className="m-0">{workspace.kind}</dd>
          <dt className="font-medium">Your role</dt>
          <dd className="m-0">{workspace.role}</dd>
        </dl>
        {workspace.kind !== "machine" && can(principal, "workspace.rename") && (
          <div className="mt-4">
            <OneFieldForm
              action={renameWorkspaceAction}
              field={{ id: "workspace-name", name: "name", label: "Workspace name", defaultValue: workspace.name }}
              submit="Rename"
            />
          </div>
        )}
      </section>
      <section aria-labelledby="new-workspace-heading" className={cardClass}>
        <h2 id="new-workspace-heading" className="mt-0 text-lg">
          A team workspace
        </h2>
        <p className={mutedClass}>
          A team workspace has its own links, members, domains and subscription; you become its owner and can invite others.
        </p>
        <OneFieldForm
          action={createWorkspaceAction}
          field={{ id: "new-workspace-name", name: "name", label: "New workspace's name", placeholder: "Acme Menus" }}
          submit="Create workspace"
          primary
        />
      </section>
      <section aria-labelledby="key-heading" className={cardClass}>
        <h2 id="key-heading" className="mt-0 text-lg">
          API key
        </h2>
        <p className={mutedClass}>
          Programs use the workspace&apos;s API key as <code>Authorization: Bearer …</code>. It can create links and repoint every
          link of this workspace, so keep it secret. One key is live at a time.
        </p>
        {key ? (
          <p data-testid="api-key-summary">
            A key ending in <code>{key.hint}</code> is live, created {dateFormat.format(key.created_at)}
            {key.last_used_at ? `, last used ${dateFormat.format(key.last_used_at)}` : ", never used yet"}.
          </p>
        ) : (
          <p data-testid="api-key-summary">This workspace has no live API key.</p>
        )}
        <ApiKeyPanel
          hasKey={key !== null}
          canClaim={can(principal, "api_key.claim")}
          canRevoke={can(principal, "api_key.revoke")}
        />
      </section>
      {can(principal, "escrow.read") && (
        <section aria-labelledby="escrow-heading" className={cardClass}>
          <h2 id="escrow-heading" className="mt-0 text-lg">
            A copy of every code
          </h2>
          <p className={mutedClass}>
            Every short link this workspace has made, archived ones too, with where each one goes, in one file signed by us. Keep
            it somewhere safe: if this service ever went away, you or an archive could keep your codes working from it.
          </p>
          <p className="mb-0">
            <a href="/dashboard/settings/escrow" download className={buttonClass.secondary} data-testid="escrow-download">
              Download a signed copy of every code
            </a>
          </p>
          <p className={mutedClass + " mb-0 break-words"}>
            Anyone can check that it is complete and really ours without asking us: run{" "}
            <code>npm run verify-escrow -- FILE --keys {keysUrl}</code> in a copy of Permalink&apos;s source code (its{" "}
            <code>docs/escrow.md</code> explains the file, and how to keep the codes working from it). The keys we sign with are
            published at <a href={keysUrl}>{keysUrl}</a>.
          </p>
        </section>
      )}
      <section aria-labelledby="sessions-heading" className={cardClass}>
        <h2 id="sessions-heading" className="mt-0 text-lg">
          Signed-in devices
        </h2>
        <p className={mutedClass}>
          Signing out ends this browser&apos;s session. If you signed in somewhere you no longer trust, sign out everywhere: every
          browser signed in as you, this one included, has to sign in again.
        </p>
        <form action={signOutEverywhereAction}>
          <Button variant="danger" type="submit">
            Sign out everywhere
          </Button>
        </form>
      </section>
    </div>
  );
}
