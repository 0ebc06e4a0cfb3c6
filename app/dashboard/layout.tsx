import { Toaster } from "@/components/ui/toaster";
import { requireDashboard } from "@/lib/api/dashboard";
import { describeAccount } from "@/lib/billing/service";
import { describeWorkspaces } from "@/lib/workspaces/service";
import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { NavLinks } from "./nav-links";
import { SignOutButton } from "./sign-out-button";
import { WorkspaceSwitcher } from "./workspace-switcher";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dashboard — Permalink" };

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const { user, principal } = await requireDashboard("/dashboard");
  const [{ workspace, workspaces }, account] = await Promise.all([describeWorkspaces(principal), describeAccount(principal)]);
  return (
    <div className="min-h-screen">
      <header className="border-b border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-3 px-4 py-3">
          <Link href="/dashboard" className="text-lg font-semibold text-inherit no-underline">
            Permalink
          </Link>
          {/* On a phone the switcher takes its own line under the name and Sign out, rather than push Sign out to a third. */}
          <WorkspaceSwitcher
            key={workspace.id}
            current={workspace.id}
            options={workspaces.map((option) => ({
              id: option.id,
              label: `${option.name} (${option.kind === "personal" ? "personal" : option.role})`,
            }))}
          />
          <div className="ml-auto flex items-center gap-3 text-sm">
            <span className="hidden text-zinc-600 sm:inline dark:text-zinc-400">{user.email}</span>
            <SignOutButton />
          </div>
        </div>
        <NavLinks />
      </header>
      {!account.active && account.workspace_kind !== "machine" && (
        <div role="status" className="border-b border-amber-300 bg-amber-50 dark:border-amber-800 dark:bg-amber-950">
          <p className="mx-auto my-0 max-w-6xl px-4 py-3 text-sm text-amber-950 dark:text-amber-100">
            {account.status === "none" ? (
              <>
                <strong>This workspace has no subscription yet.</strong> Choose a plan in{" "}
                <Link href="/dashboard/billing">Billing</Link> to create and edit links.
              </>
            ) : (
              <>
                <strong>The subscription is {account.status.replace("_", " ")}: the workspace is read-only.</strong> Existing
                links keep resolving and you keep your links, QR artwork, logos and analytics. Resume in{" "}
                <Link href="/dashboard/billing">Billing</Link> to create and edit again.
              </>
            )}
          </p>
        </div>
      )}
      <Toaster>
        <main className="mx-auto max-w-6xl px-4 py-4 sm:py-6">{children}</main>
      </Toaster>
    </div>
  );
}
