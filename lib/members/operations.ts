import { defineOperation, failure, ok, paymentRequired } from "@/lib/http/operation";
import {
  acceptedInvitationSchema,
  changeRoleBodySchema,
  invitedMemberSchema,
  inviteMemberBodySchema,
  memberListSchema,
  memberRemovalSchema,
  roleChangeSchema,
} from "./schemas";

const MEMBER_ID = {
  name: "id",
  in: "path",
  required: true,
  description: "a member's id (mem_…) or a pending invitation's id (inv_…), from GET /api/members",
} as const;

const KEY_GOES_WITH_ITS_CLAIMER =
  "When the person removed, leaving or demoted below admin claimed the workspace's live API key, " +
  "this also revokes the API key they created; integrations using it stop, and the owners are " +
  "e-mailed (api_key_revoked: true). Likewise the webhook endpoints they created are disabled " +
  "(webhooks_disabled) and those whose secret they saw are flagged for rotation (webhooks_rotation_due), " +
  "and the owners are e-mailed.";

const PEOPLE_NEED_A_SESSION =
  "An API key was sent (people are managed only with a session token), or your role does not allow this.";

export const listMembers = defineOperation({
  method: "get",
  path: "/api/members",
  auth: "workspace",
  scope: "members:read",
  operationId: "listMembers",
  summary: "List members and invitations",
  description:
    "Members of the workspace (status active), then its pending invitations (status invited, or " +
    "expired once the link has expired: re-send or revoke it), each oldest first. Removed members, " +
    "revoked and accepted invitations leave the list. Every role and the workspace's API key may " +
    "list.",
  tag: "Workspaces",
  responses: {
    200: ok("The members and pending invitations.", memberListSchema),
    403: failure("Your role in this workspace does not allow listing members."),
  },
});

export const inviteMember = defineOperation({
  method: "post",
  path: "/api/members",
  auth: "session",
  operationId: "inviteMember",
  summary: "Invite someone by e-mail",
  description:
    "Owners and admins, with a session token (only an owner may invite an owner), in a workspace " +
    "with an active subscription; a workspace sends at most 50 invitation e-mails (invitations and " +
    "re-sends) a UTC day. The address is normalised as sign-in normalises it. An e-mail with the " +
    "link `${BASE_URL}/invite/{token}` goes out through SMTP_URL; the link works once, for the " +
    "invited address only, for INVITATION_TTL_DAYS (14) days. Without a mail server (development " +
    "only) the link is written to the server's log and returned here as invite_url; in production " +
    "without one, nothing is recorded and the answer is 503.",
  tag: "Workspaces",
  write: true,
  body: inviteMemberBodySchema,
  responses: {
    201: ok("The invitation, as it appears in the member list.", invitedMemberSchema),
    403: failure(PEOPLE_NEED_A_SESSION),
    402: paymentRequired("The workspace has no active subscription, which inviting needs."),
    409: failure("The address already belongs to a member, or already has a pending invitation."),
    429: failure("The workspace has sent its 50 invitation e-mails for this UTC day."),
    502: failure("The mail server did not accept the message; nothing was recorded."),
    503: failure("No mail server is configured on this production deployment (SMTP_URL)."),
  },
});

export const changeMemberRole = defineOperation({
  method: "patch",
  path: "/api/members/{id}",
  auth: "session",
  operationId: "changeMemberRole",
  summary: "Change a member's role",
  description:
    "Owners and admins, with a session token; only an owner makes someone an owner or changes an " +
    "owner's role. On a pending invitation, changes the role it offers. The last owner cannot be " +
    "demoted, and a personal workspace's own user always stays its owner (409). " +
    KEY_GOES_WITH_ITS_CLAIMER,
  tag: "Workspaces",
  write: true,
  parameters: [MEMBER_ID],
  body: changeRoleBodySchema,
  responses: {
    200: ok("The member with the new role, and whether the API key they claimed was revoked.", roleChangeSchema),
    403: failure(PEOPLE_NEED_A_SESSION),
    404: failure("No member or pending invitation with this id in this workspace."),
    409: failure("The last owner cannot be demoted; a personal workspace's user stays its owner."),
  },
});

export const removeMember = defineOperation({
  method: "delete",
  path: "/api/members/{id}",
  auth: "session",
  operationId: "removeMember",
  summary: "Remove a member, leave, or revoke an invitation",
  description:
    "With your own member id: leave the workspace (any role). With someone else's: remove them " +
    "(owners and admins; only an owner removes an owner). With an invitation's id: revoke it, and " +
    "its link answers 410. The last owner cannot leave or be removed, nor can a personal workspace's " +
    "own user (409). A removed member's links stay with the workspace. " +
    KEY_GOES_WITH_ITS_CLAIMER,
  tag: "Workspaces",
  write: true,
  parameters: [MEMBER_ID],
  responses: {
    200: ok("Removed, left or revoked; and whether the API key the person claimed was revoked.", memberRemovalSchema),
    403: failure(PEOPLE_NEED_A_SESSION),
    404: failure("No member or pending invitation with this id in this workspace."),
    409: failure("The last owner cannot leave; a personal workspace's user stays its owner."),
  },
});

export const resendInvitation = defineOperation({
  method: "post",
  path: "/api/members/{id}/resend",
  auth: "session",
  operationId: "resendInvitation",
  summary: "Re-send an invitation",
  description:
    "Owners and admins, with a session token. Issues a new link, valid INVITATION_TTL_DAYS from now, " +
    "and e-mails it; the previous link stops working (links are stored only as hashes, so the old " +
    "one cannot be sent again). Works on expired invitations too.",
  tag: "Workspaces",
  write: true,
  parameters: [MEMBER_ID],
  responses: {
    200: ok("The invitation, with invite_url where no mail server is configured (development).", invitedMemberSchema),
    403: failure(PEOPLE_NEED_A_SESSION),
    404: failure("No pending invitation with this id in this workspace."),
    402: paymentRequired("The workspace has no active subscription, which re-sending needs."),
    409: failure("The id is a member's: there is no invitation to re-send."),
    429: failure("The workspace has sent its 50 invitation e-mails for this UTC day."),
    502: failure("The mail server did not accept the message; the previous link still works."),
    503: failure("No mail server is configured on this production deployment (SMTP_URL)."),
  },
});

export const acceptInvitation = defineOperation({
  method: "post",
  path: "/api/invitations/{token}/accept",
  auth: "session",
  operationId: "acceptInvitation",
  summary: "Accept an invitation",
  description:
    "With the session token of the invited address (addresses compare after the normalisation " +
    "sign-in uses: Unicode NFKC, case-folded, IDNA domain; an external identity provider's address " +
    "counts only when it vouches for it). Makes the caller a member with the invitation's role; the " +
    "link then stops working. The /invite/{token} page runs the same accept.",
  tag: "Workspaces",
  write: true,
  parameters: [{ name: "token", in: "path", required: true, description: "the secret from the invitation link /invite/{token}" }],
  responses: {
    200: ok("The workspace joined and the new membership.", acceptedInvitationSchema),
    403: failure("The invitation was sent to another address, or an API key was sent."),
    404: failure("No invitation has this link."),
    410: failure("The invitation was already used, was revoked or replaced, or has expired."),
  },
});
