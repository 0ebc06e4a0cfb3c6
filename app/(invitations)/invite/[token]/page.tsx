import { SignOutButton } from "@/app/dashboard/sign-out-button";
import { buttonClass, cardClass, errorClass, mutedClass } from "@/components/ui/styles";
import { dashboardContext, foundOrNotFound } from "@/lib/api/dashboard";
import { describeInvitation } from "@/lib/members/invitations";
import type { Metadata } from "next";
import Link from "next/link";
import { AcceptInvitation } from "./accept-invitation";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Invitation — Permalink", robots: { index: false } };

/**
 * Where an invitation e-mail's link lands. It says who invited whom to what before and after
 * sign-in; accepting needs the invited address's session, and a different address is refused by
 * the capability. An unknown link answers 404.
 */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invitation = await foundOrNotFound(describeInvitation(token));
  const context = await dashboardContext();
  const here = `/invite/${encodeURIComponent(token)}`;
  return (
    <main className="mx-auto max-w-md px-5 py-12">
      <p className="m-0">
        <Link href="/dashboard">Permalink</Link>
      </p>
      <h1 className="mt-4 text-3xl font-bold">Join a workspace</h1>
      <div className={cardClass + " mt-6 space-y-4"}>
        {invitation.unusable !== null ? (
          <p role="alert" className={errorClass + " m-0"}>
            {invitation.unusable}
          </p>
        ) : (
          <>
            <p className="m-0" data-testid="invitation-offer">
              {invitation.sentence}
            </p>
            {context ? (
              <SignedIn token={token} signedInAs={context.user.email} invited={invitation.email} />
            ) : (
              <SignedOut invited={invitation.email} here={here} />
            )}
          </>
        )}
      </div>
    </main>
  );
}

function SignedIn({ token, signedInAs, invited }: { token: string; signedInAs: string | null; invited: string }) {
  return (
    <>
      <p className="m-0">
        You are signed in as <strong>{signedInAs}</strong>. The invitation works only for <strong>{invited}</strong>.
      </p>
      <AcceptInvitation token={token} />
      <div className="flex flex-wrap items-center gap-2">
        <p className={mutedClass + " m-0"}>
          Not the right address? Sign out, then sign in with the address the invitation was sent to.
        </p>
        <SignOutButton />
      </div>
    </>
  );
}

function SignedOut({ invited, here }: { invited: string; here: string }) {
  return (
    <>
      <p className="m-0">
        Sign in with <strong>{invited}</strong> to accept. The link works once.
      </p>
      <Link href={`/signin?callbackUrl=${encodeURIComponent(here)}`} className={buttonClass.primary + " no-underline"}>
        Sign in to accept
      </Link>
    </>
  );
}
