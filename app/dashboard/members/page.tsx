import { FoldOnPhone } from "@/components/ui/fold-on-phone";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { requireDashboard } from "@/lib/api/dashboard";
import { describeAccount } from "@/lib/billing/service";
import { endpointCreatorMemberIds, keyHolderMemberId, listMembers, ownMemberId } from "@/lib/members/service";
import { can } from "@/lib/workspaces/permissions";
import Link from "next/link";
import type { ReactNode } from "react";
import { dashboardTitle } from "../page-title";
import { InviteForm, LeaveButton, MemberActions } from "./member-forms";

export const generateMetadata = () => dashboardTitle("Members");

/** Said beforehand, on the row of whoever claimed the live API key. */
const KEY_HOLDER_NOTE = {
  self: "You created the workspace's API key: leaving, or becoming a member or viewer, also revokes it; integrations using it stop.",
  other:
    "Created the workspace's API key: removing them, or making them a member or viewer, also revokes the API key they created; " +
    "integrations using it stop.",
};

/** Said beforehand, on the row of whoever set up a webhook that is on. */
const WEBHOOK_CREATOR_NOTE = {
  self: "You set up webhooks of this workspace: leaving, or becoming a member or viewer, also turns them off.",
  other: "Set up webhooks of this workspace: removing them, or making them a member or viewer, also turns those webhooks off.",
};

const dateFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeZone: "UTC" });

export default async function MembersPage() {
  const { user, principal } = await requireDashboard("/dashboard/members");
  const [members, myId, keyHolderId, webhookCreatorIds, account] = await Promise.all([
    listMembers(principal),
    ownMemberId(principal),
    keyHolderMemberId(principal),
    endpointCreatorMemberIds(principal),
    describeAccount(principal),
  ]);
  const manages = can(principal, "members.invite");
  // Inviting needs the workspace's own subscription: without one the page says so instead of offering a form that is refused.
  const invites = account.active;
  const managesOwners = can(principal, "members.manage_owners");
  const people = members.filter((member) => member.status === "active");
  const invitations = members.filter((member) => member.status !== "active");
  // A personal workspace's own user cannot leave it.
  const leaves = myId !== null && principal.workspaceId !== user.personalWorkspaceId;
  return (
    <div className="space-y-6">
      <h1 className="m-0 text-2xl font-bold">Members</h1>
      {manages && (
        <section aria-labelledby="invite-heading" className={cardClass}>
          {invites ? (
            <FoldOnPhone label="Invite someone">
              <h2 id="invite-heading" className="mt-0 text-lg">
                Invite someone
              </h2>
              <InviteForm managesOwners={managesOwners} />
            </FoldOnPhone>
          ) : (
            <>
              <h2 id="invite-heading" className="mt-0 text-lg">
                Invite someone
              </h2>
              <p className="m-0" data-testid="invite-needs-subscription">
                Inviting people needs this workspace&apos;s own subscription (each team workspace has its own). Choose a plan in{" "}
                <Link href="/dashboard/billing">Billing</Link>, then invite people here.
              </p>
            </>
          )}
        </section>
      )}
      <section aria-labelledby="people-heading">
        <h2 id="people-heading" className="text-lg">
          People
        </h2>
        <PersonList labelledBy="people-heading">
          {people.map((member) => (
            <PersonCard
              key={member.id}
              email={member.email ?? "—"}
              you={member.id === myId}
              notes={[
                member.id === keyHolderId && (member.id === myId ? KEY_HOLDER_NOTE.self : KEY_HOLDER_NOTE.other),
                webhookCreatorIds.includes(member.id) &&
                  (member.id === myId ? WEBHOOK_CREATOR_NOTE.self : WEBHOOK_CREATOR_NOTE.other),
              ]}
              role={member.role}
              when={`since ${dateFormat.format(member.created_at)}`}
            >
              {manages && member.id !== myId && (member.role !== "owner" || managesOwners) && (
                <MemberActions
                  id={member.id}
                  email={member.email ?? member.id}
                  role={member.role}
                  managesOwners={managesOwners}
                  kind="member"
                />
              )}
            </PersonCard>
          ))}
        </PersonList>
      </section>
      <section aria-labelledby="invitations-heading">
        <h2 id="invitations-heading" className="text-lg">
          Pending invitations
        </h2>
        {invitations.length === 0 ? (
          <p className={mutedClass}>
            {manages && invites
              ? "No invitation is waiting. Invite someone above: they get an e-mail with a link that works once."
              : "No invitation is waiting."}
          </p>
        ) : (
          <PersonList labelledBy="invitations-heading">
            {invitations.map((invitation) => (
              <PersonCard
                key={invitation.id}
                email={invitation.email ?? "—"}
                role={invitation.role}
                when={
                  invitation.status === "expired" ? "expired: re-send it" : `invited ${dateFormat.format(invitation.created_at)}`
                }
              >
                {manages && (invitation.role !== "owner" || managesOwners) && (
                  <MemberActions
                    id={invitation.id}
                    email={invitation.email ?? invitation.id}
                    role={invitation.role}
                    managesOwners={managesOwners}
                    kind="invitation"
                  />
                )}
              </PersonCard>
            ))}
          </PersonList>
        )}
      </section>
      {leaves && (
        <section aria-labelledby="leave-heading" className={cardClass}>
          <h2 id="leave-heading" className="mt-0 text-lg">
            Leave this workspace
          </h2>
          <p className={mutedClass}>
            You lose access to its links at once; the links stay with the workspace and keep resolving.
          </p>
          <LeaveButton id={myId} />
        </section>
      )}
    </div>
  );
}

function PersonList({ labelledBy, children }: { labelledBy: string; children: ReactNode }) {
  return (
    <ul
      aria-labelledby={labelledBy}
      className="m-0 list-none divide-y divide-zinc-200 rounded-lg border border-zinc-200 p-0 dark:divide-zinc-800 dark:border-zinc-800"
    >
      {children}
    </ul>
  );
}

/**
 * One person or invitation: a card on a phone (the address on its own line, whole words kept
 * together), one line of columns on wider screens.
 */
function PersonCard(props: {
  email: string;
  you?: boolean;
  /** What removing or demoting this person also does, said beforehand (false: nothing to say). */
  notes?: (string | false)[];
  role: string;
  when: string;
  children: ReactNode;
}) {
  return (
    <li className="grid gap-2 p-3 text-sm sm:grid-cols-[minmax(0,1fr)_6rem_9rem_minmax(0,auto)] sm:items-start sm:gap-4">
      <div className="min-w-0 break-words">
        <span className="font-medium">{props.email}</span>
        {props.you && <span className={mutedClass}> (you)</span>}
        {props.notes?.filter(Boolean).map((note) => (
          <p key={note as string} className={mutedClass + " m-0 text-sm"}>
            {note}
          </p>
        ))}
      </div>
      <p className="m-0">
        <span className={mutedClass + " sm:sr-only"}>Role: </span>
        {props.role}
      </p>
      <p className="m-0">{props.when}</p>
      <div>{props.children}</div>
    </li>
  );
}
