"use client";

import { Button } from "@/components/ui/button";
import { Field, TextField } from "@/components/ui/field";
import { FileInput, Textarea } from "@/components/ui/input";
import { ActionOutcome } from "@/components/ui/outcome";
import { cardClass, errorClass, mutedClass } from "@/components/ui/styles";
import { IMAGE_TYPES, MAX_LOGO_UPLOAD_BYTES } from "@/lib/logos/limits";
import { useRouter } from "next/navigation";
import { useActionState, useState } from "react";
import { type LinkEditState, previewLinkAction } from "../actions";

type Preview = { title: string | null; description: string | null; image_url: string | null } | null;

/**
 * What apps that show links (Slack, WhatsApp, iMessage, LinkedIn…) display for this link: a title,
 * a description and an image, typed, uploaded, or read once from the destination's own page.
 */
export function PreviewForm({ id, preview, count, canEdit }: { id: string; preview: Preview; count: number; canEdit: boolean }) {
  const [state, action, pending] = useActionState<LinkEditState, FormData>(previewLinkAction, null);
  const [imageError, setImageError] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const router = useRouter();

  async function upload(file: File) {
    setImageError(null);
    if (file.size > MAX_LOGO_UPLOAD_BYTES) return setImageError("The image is larger than 1 MiB; choose a smaller one.");
    setUploading(true);
    try {
      const response = await fetch(`/dashboard/links/${id}/preview-image`, {
        method: "PUT",
        body: file,
        headers: { "Content-Type": file.type || "application/octet-stream" },
      });
      if (!response.ok) return setImageError(((await response.json()) as { error: string }).error);
      router.refresh();
    } finally {
      setUploading(false);
    }
  }

  return (
    <section aria-labelledby="preview-heading" className={cardClass}>
      <h2 id="preview-heading" className="mt-0 text-lg">
        Preview
      </h2>
      <p className={mutedClass + " mt-0"}>
        {preview
          ? "Apps that show links, such as Slack, WhatsApp, iMessage and LinkedIn, show this for the link; people who open it still go straight to the destination."
          : "Apps that show links, such as Slack, WhatsApp and iMessage, show the destination's own title and image. Set a preview to choose what they show."}{" "}
        {count > 0 && `Shown ${count} ${count === 1 ? "time" : "times"} so far (not counted as scans).`}
      </p>
      {preview?.image_url && (
        // eslint-disable-next-line @next/next/no-img-element -- the image is served from our own origin, already sized
        <img src={preview.image_url} alt="The preview's image" className="mb-3 max-h-40 w-auto rounded border border-zinc-200" />
      )}
      {canEdit ? (
        <>
          <form action={action} className="grid gap-3" key={JSON.stringify(state) + JSON.stringify(preview)}>
            <input type="hidden" name="id" value={id} />
            <TextField
              id="preview-title"
              label="Title"
              name="preview_title"
              maxLength={200}
              defaultValue={preview?.title ?? ""}
            />
            <Field id="preview-description" label="Description">
              {(control) => (
                <Textarea
                  {...control}
                  name="preview_description"
                  maxLength={500}
                  rows={2}
                  defaultValue={preview?.description ?? ""}
                />
              )}
            </Field>
            <div className="flex flex-wrap gap-2">
              <Button type="submit" name="intent" value="save" variant="primary" disabled={pending}>
                Save preview
              </Button>
              <Button type="submit" name="intent" value="fill" disabled={pending}>
                Fill from the destination
              </Button>
              {preview && (
                <Button type="submit" name="intent" value="remove" disabled={pending}>
                  Remove preview
                </Button>
              )}
            </div>
            <ActionOutcome state={state} />
          </form>
          <div className="mt-3 space-y-1">
            <Field
              id="preview-image-file"
              label={`${preview?.image_url ? "Replace the image" : "Upload an image"} (PNG, JPEG, WebP or SVG, up to 1 MiB)`}
              className="space-y-1"
            >
              {(control) => (
                <FileInput {...control} accept={IMAGE_TYPES} disabled={uploading} onFile={(file) => void upload(file)} />
              )}
            </Field>
            {imageError && (
              <p role="alert" className={errorClass}>
                {imageError}
              </p>
            )}
          </div>
        </>
      ) : (
        <p className={mutedClass}>Changing the preview needs an active subscription and the right to edit this link.</p>
      )}
    </section>
  );
}
