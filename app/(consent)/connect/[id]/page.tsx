import { SignOutButton } from "@/app/dashboard/sign-out-button";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { foundOrNotFound, requireDashboard } from "@/lib/api/dashboard";
import { SCOPE_WORDING } from "@/lib/http/scopes";
import { pendingConsent } from "@/lib/oauth/service";
import type { Metadata } from "next";
import Link from "next/link";
import { ConsentForm } from "./consent-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Connect an app — Permalink", robots: { index: false } };

/**
 * Where an app's authorization request lands (the authorization endpoint sends the browser here):
 * the app's name as it registered it (text only), the workspace to connect (a person in several
 * chooses), what it asks to do (each thing only where the person's role there allows it), allow or deny.
 */
export default async function ConsentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { user } = await requireDashboard(`/connect/${encodeURIComponent(id)}`);
  const consent = await foundOrNotFound(pendingConsent(user.userId, id));
  return (
    <main className="mx-auto max-w-lg px-5 py-12">
      <p className="m-0">
        <Link href="/dashboard">Permalink</Link>
      </p>
      <h1 className="mt-4 text-3xl font-bold">Connect an app</h1>
      <div className={cardClass + " mt-6 space-y-4"}>
        <p className="m-0">
          <strong>{consent.app.name}</strong> wants to use Permalink as you, <strong>{user.email}</strong>.
        </p>
        <p className={mutedClass + " m-0"}>
          The name is the one the app gave itself{consent.app.uri ? ` (it says it is from ${consent.app.uri})` : ""}. After you
          answer you go back to <strong>{consent.returnsTo}</strong>. Connect only apps you trust; you can disconnect it at any
          time under Connected apps.
        </p>
        <ConsentForm
          request={consent.id}
          scopes={consent.scopes.map((scope) => ({ scope, wording: SCOPE_WORDING[scope] }))}
          workspaces={consent.workspaces.map((workspace) => ({
            id: workspace.id,
            label: `${workspace.name} (${workspace.kind === "personal" ? "personal" : workspace.role})`,
            role: workspace.role,
            grantable: workspace.grantable,
          }))}
        />
        <div className="flex flex-wrap items-center gap-2">
          <p className={mutedClass + " m-0"}>Not you?</p>
          <SignOutButton />
        </div>
      </div>
    </main>
  );
}
