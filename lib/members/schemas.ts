import { normaliseEmail } from "@/lib/auth/email";
import { epochMilliseconds } from "@/lib/http/schemas";
import { roleSchema, workspaceMembershipSchema } from "@/lib/workspaces/schemas";
import { z } from "zod";

export const memberStatusSchema = z.enum(["active", "invited", "expired"]).meta({
  description:
    "active: a member; invited: an invitation waiting to be accepted; expired: an invitation whose link has expired (re-send or revoke it)",
});

export const memberSchema = z
  .object({
    id: z
      .string()
      .meta({ description: "mem_… for a member, inv_… for an invitation; the {id} of PATCH and DELETE /api/members/{id}" }),
    email: z
      .string()
      .nullable()
      .meta({ description: "the member's e-mail address (null when their identity provider shares none)" }),
    role: roleSchema,
    status: memberStatusSchema,
    created_at: epochMilliseconds,
  })
  .meta({ id: "Member" });

export const memberListSchema = z.object({ members: z.array(memberSchema) }).meta({ id: "MemberList" });

export const invitedMemberSchema = memberSchema
  .extend({
    invite_url: z.string().optional().meta({
      description:
        "only where no mail server is configured (SMTP_URL unset, outside production): the invitation link, for the inviter to pass on",
    }),
  })
  .meta({ id: "InvitedMember" });

const apiKeyRevoked = z.boolean().meta({
  description:
    "true when this person had claimed the workspace's live API key (or the key it was rotated " +
    "from): it is revoked with the change, integrations using it stop, and the owners are e-mailed",
});

const webhooksDisabled = z.array(z.string()).meta({
  description:
    "the webhook endpoints this person created, disabled with the change (they receive none of the workspace's events " +
    "any more); empty when the person keeps admin rights. The owners are e-mailed",
});

const webhooksRotationDue = z.array(z.string()).meta({
  description:
    "the webhook endpoints whose signing secret this person saw (created or last rotated it), now flagged rotation_due: " +
    "rotate each secret",
});

const departure = {
  api_key_revoked: apiKeyRevoked,
  webhooks_disabled: webhooksDisabled,
  webhooks_rotation_due: webhooksRotationDue,
};

export const roleChangeSchema = memberSchema.extend(departure).meta({ id: "MemberRoleChange" });

export const memberRemovalSchema = z
  .object({
    id: z.string().meta({ description: "the member's or invitation's id, as sent" }),
    ...departure,
  })
  .meta({ id: "MemberRemoval" });

/** An e-mail address, in the one spelling sessions use (lib/auth/email.ts). */
const emailAddress = z
  .string()
  .max(320)
  .transform((value, context) => {
    const normalised = normaliseEmail(value);
    if (normalised === null) {
      context.addIssue({ code: "custom", message: "must be an e-mail address" });
      return z.NEVER;
    }
    return normalised;
  });

export const inviteMemberBodySchema = z
  .strictObject({
    email: emailAddress,
    role: roleSchema.default("member").meta({ description: "default member; only an owner may invite an owner" }),
  })
  .meta({ id: "InviteMember" });

export type InviteMemberInput = z.output<typeof inviteMemberBodySchema>;

export const changeRoleBodySchema = z.strictObject({ role: roleSchema }).meta({ id: "ChangeMemberRole" });

export const acceptedInvitationSchema = z
  .object({
    workspace: workspaceMembershipSchema.meta({
      description: "the workspace joined; send its id as X-Workspace-Id to act there",
    }),
    member: memberSchema,
  })
  .meta({ id: "AcceptedInvitation" });
