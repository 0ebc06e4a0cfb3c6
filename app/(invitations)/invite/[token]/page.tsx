import type { Metadata } from "next";
import Link from "next/link";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { requireDashboard } from "@/lib/api/dashboard";
import { SignOutButton } from "@/app/dashboard/sign-out-button";
import { AcceptInvitation } from "./accept-invitation";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Invitation — Permalink", robots: { index: false } };

/**
 * Where an invitation e-mail's link lands. Accepting needs the invited address's session: a
 * visitor signs in first (and comes back here), and a different address is refused by the capability.
 */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const { user } = await requireDashboard(`/invite/${encodeURIComponent(token)}`);
  return (
    <main className="mx-auto max-w-md px-5 py-12">
      <p className="m-0">
        <Link href="/dashboard">Permalink</Link>
      </p>
      <h1 className="mt-4 text-3xl font-bold">Join a workspace</h1>
      <div className={cardClass + " mt-6 space-y-4"}>
        <p className="m-0">
          You are signed in as <strong>{user.email}</strong>. The invitation works only for the address it was sent to.
        </p>
        <AcceptInvitation token={token} />
        <div className="flex flex-wrap items-center gap-2">
          <p className={mutedClass + " m-0"}>
            Not the right address? Sign out, then sign in with the address the invitation was sent to.
          </p>
          <SignOutButton />
        </div>
      </div>
    </main>
  );
}
