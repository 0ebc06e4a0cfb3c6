import { FramedTable } from "@/components/table";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { requireDashboard } from "@/lib/api/dashboard";
import { endpointCreatorMemberIds, keyHolderMemberId, listMembers, ownMemberId } from "@/lib/members/service";
import { can } from "@/lib/workspaces/permissions";
import { InviteForm, LeaveButton, MemberActions } from "./member-forms";
import { FoldOnPhone } from "@/components/ui/fold-on-phone";

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
  const [members, myId, keyHolderId, webhookCreatorIds] = await Promise.all([
    listMembers(principal),
    ownMemberId(principal),
    keyHolderMemberId(principal),
    endpointCreatorMemberIds(principal),
  ]);
  const manages = can(principal, "members.invite");
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
          <FoldOnPhone label="Invite someone">
            <h2 id="invite-heading" className="mt-0 text-lg">
              Invite someone
            </h2>
            <InviteForm managesOwners={managesOwners} />
          </FoldOnPhone>
        </section>
      )}
      <section aria-labelledby="people-heading">
        <h2 id="people-heading" className="text-lg">
          People
        </h2>
        <FramedTable headings={["E-mail", "Role", "Since", ""]}>
          {people.map((member) => (
            <tr key={member.id}>
              <td className="break-all">
                {member.email ?? "—"}
                {member.id === myId && <span className={mutedClass}> (you)</span>}
                {member.id === keyHolderId && (
                  <p className={mutedClass + " m-0 text-sm"}>
                    {member.id === myId ? KEY_HOLDER_NOTE.self : KEY_HOLDER_NOTE.other}
                  </p>
                )}
                {webhookCreatorIds.includes(member.id) && (
                  <p className={mutedClass + " m-0 text-sm"}>
                    {member.id === myId ? WEBHOOK_CREATOR_NOTE.self : WEBHOOK_CREATOR_NOTE.other}
                  </p>
                )}
              </td>
              <td>{member.role}</td>
              <td className="whitespace-nowrap">{dateFormat.format(member.created_at)}</td>
              <td>
                {manages && member.id !== myId && (member.role !== "owner" || managesOwners) && (
                  <MemberActions
                    id={member.id}
                    email={member.email ?? member.id}
                    role={member.role}
                    managesOwners={managesOwners}
                    kind="member"
                  />
                )}
              </td>
            </tr>
          ))}
        </FramedTable>
      </section>
      <section aria-labelledby="invitations-heading">
        <h2 id="invitations-heading" className="text-lg">
          Pending invitations
        </h2>
        {invitations.length === 0 ? (
          <p className={mutedClass}>
            {manages
              ? "No invitation is waiting. Invite someone above: they get an e-mail with a link that works once."
              : "No invitation is waiting."}
          </p>
        ) : (
          <FramedTable headings={["E-mail", "Role", "Status", ""]}>
            {invitations.map((invitation) => (
              <tr key={invitation.id}>
                <td className="break-all">{invitation.email}</td>
                <td>{invitation.role}</td>
                <td>
                  {invitation.status === "expired"
                    ? "expired: re-send it"
                    : `invited ${dateFormat.format(invitation.created_at)}`}
                </td>
                <td>
                  {manages && (invitation.role !== "owner" || managesOwners) && (
                    <MemberActions
                      id={invitation.id}
                      email={invitation.email ?? invitation.id}
                      role={invitation.role}
                      managesOwners={managesOwners}
                      kind="invitation"
                    />
                  )}
                </td>
              </tr>
            ))}
          </FramedTable>
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
