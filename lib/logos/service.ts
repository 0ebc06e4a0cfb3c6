import { requireEditEntitlement } from "@/lib/billing/entitlement";
import { readBinaryBody } from "@/lib/http/body";
import { type Download, etagOf } from "@/lib/http/download";
import { notFound } from "@/lib/http/errors";
import { toLinkView } from "@/lib/links/present";
import type { LinkView } from "@/lib/links/schemas";
import { findEditableLink, getLink, setPreviewImage } from "@/lib/links/service";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { createHash } from "node:crypto";
import { encodeLogo, logoUploadType } from "./decode";
import { MAX_LOGO_UPLOAD_BYTES } from "./limits";
import { type LogoResponse, MAX_PREVIEW_SIDE } from "./schemas";
import { type LogoInfo, type LogoOwner, logoStorage as storage } from "./store";

const WORKSPACE_LOGO_REFUSAL =
  "Your role in this workspace does not allow changing its default logo, which every link's QR code can show; ask an owner or admin.";

/** Sets a link's own logo: an edit of the link, so it needs the edit permission and a subscription. */
export async function uploadLinkLogo(principal: Principal, linkId: string, request: Request): Promise<LogoResponse> {
  const link = await findEditableLink(principal, linkId);
  return upload(principal, { kind: "link", linkId: link.id }, request);
}

/** Sets the workspace's default logo; it changes every link's artwork, so it takes the right to edit any link. */
export async function uploadWorkspaceLogo(principal: Principal, request: Request): Promise<LogoResponse> {
  requirePermission(principal, "links.edit_any", WORKSPACE_LOGO_REFUSAL);
  return upload(principal, { kind: "workspace", workspaceId: principal.workspaceId }, request);
}

/** Removing a logo needs no subscription: like archiving, it only takes something away and every code keeps working. */
export async function removeLinkLogo(principal: Principal, linkId: string): Promise<void> {
  const link = await findEditableLink(principal, linkId);
  await storage.remove({ kind: "link", linkId: link.id });
}

export async function removeWorkspaceLogo(principal: Principal): Promise<void> {
  requirePermission(principal, "links.edit_any", WORKSPACE_LOGO_REFUSAL);
  await storage.remove({ kind: "workspace", workspaceId: principal.workspaceId });
}

/** Downloading needs only the right to read the link, and no subscription. */
export async function linkLogoDownload(principal: Principal, linkId: string): Promise<Download> {
  const link = await getLink(principal, linkId);
  return download(
    { kind: "link", linkId: link.id },
    "This link has no logo of its own; upload one with PUT /api/links/{id}/logo.",
  );
}

export async function workspaceLogoDownload(principal: Principal): Promise<Download> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading its logo.");
  return download(
    { kind: "workspace", workspaceId: principal.workspaceId },
    "This workspace has no default logo; upload one with PUT /api/workspaces/logo.",
  );
}

/**
 * The refusals in the order a client can fix them: the body's type (415), the subscription (402), its
 * size (413), its content (415/413).
 */
async function upload(principal: Principal, owner: LogoOwner, request: Request): Promise<LogoResponse> {
  const type = logoUploadType(request.headers.get("content-type"));
  await requireEditEntitlement(principal.workspaceId);
  const bytes = await readBinaryBody(request, MAX_LOGO_UPLOAD_BYTES);
  const logo = await encodeLogo(bytes, type, principal.workspaceId);
  return toLogoResponse(await storage.save(owner, logo));
}

async function download(owner: LogoOwner, missing: string): Promise<Download> {
  const info = await storage.describe(owner);
  if (!info) throw notFound(missing);
  return {
    etag: etagOf(info.sha256),
    contentType: info.contentType,
    load: async () => {
      const logo = await storage.load(owner);
      if (!logo) throw notFound(missing);
      return { body: logo.data, etag: etagOf(logo.sha256) };
    },
  };
}

function toLogoResponse(info: LogoInfo): LogoResponse {
  return { logo: { content_type: "image/png", width: info.width, height: info.height, bytes: info.bytes } };
}

/**
 * Sets a link's preview image: the upload through the same defences as a logo (type screen, size,
 * pixel bound, sandboxed render), re-encoded as a JPEG, then named in the link's row
 * (lib/links), where every door's visit already reads it.
 */
export async function uploadPreviewImage(principal: Principal, linkId: string, request: Request): Promise<LinkView> {
  const link = await findEditableLink(principal, linkId);
  const type = logoUploadType(request.headers.get("content-type"));
  await requireEditEntitlement(principal.workspaceId);
  const bytes = await readBinaryBody(request, MAX_LOGO_UPLOAD_BYTES);
  const image = await encodeLogo(bytes, type, principal.workspaceId, { maxSide: MAX_PREVIEW_SIDE, format: "jpeg" });
  const sha256 = createHash("sha256").update(image.data).digest("hex");
  return toLinkView(
    await setPreviewImage(principal, link.id, {
      data: image.data,
      contentType: "image/jpeg",
      width: image.width,
      height: image.height,
      sha256,
    }),
  );
}
