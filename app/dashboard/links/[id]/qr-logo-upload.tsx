import { Confirm } from "@/components/ui/confirm";
import { Field } from "@/components/ui/field";
import { FileInput } from "@/components/ui/input";
import { mutedClass } from "@/components/ui/styles";
import { IMAGE_TYPES, MAX_LOGO_UPLOAD_BYTES } from "@/lib/logos/limits";

/** The link's own logo: uploaded (checked for size here first), replaced, or removed after a question. */
export function LogoUpload({
  logo,
  canEdit,
  canRemove,
  busy,
  onUpload,
  onRemove,
  onRefusal,
}: {
  logo: "link" | "workspace" | "none";
  canEdit: boolean;
  canRemove: boolean;
  busy: boolean;
  onUpload: (file: File) => void;
  onRemove: () => void;
  /** A file refused here, before any upload, with the sentence why. */
  onRefusal: (sentence: string) => void;
}) {
  return (
    <div className="space-y-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
      <Field
        id="qr-logo-file"
        label={`${logo === "link" ? "Replace this link's logo" : "Upload a logo for this link"} (PNG, JPEG, WebP or SVG, up to 1 MiB)`}
        className="space-y-2"
      >
        {(control) => (
          <FileInput
            {...control}
            accept={IMAGE_TYPES}
            disabled={!canEdit || busy}
            onFile={(file) => (file.size > MAX_LOGO_UPLOAD_BYTES ? onRefusal(logoTooLarge(file)) : onUpload(file))}
          />
        )}
      </Field>
      {!canEdit && (
        <p className={mutedClass + " m-0"}>
          Uploading a logo is an edit: it needs an active subscription and the right to edit this link.
        </p>
      )}
      {logo === "link" && canRemove && (
        <Confirm
          label="Remove this link's logo"
          question={
            "Remove this link's logo? The image is deleted; codes downloaded from now on show the workspace's logo or none. " +
            "Codes already printed keep theirs."
          }
          confirm="Yes, remove the logo"
          onConfirm={onRemove}
          pending={busy}
        />
      )}
    </div>
  );
}

/** Refused here, before any upload: the sentence says how large the file is and what the limit is. */
function logoTooLarge(file: File): string {
  const megabytes = (file.size / (1024 * 1024)).toFixed(1);
  const limit = MAX_LOGO_UPLOAD_BYTES / (1024 * 1024);
  return `${file.name} is ${megabytes} MiB; a logo can be at most ${limit} MiB. Choose a smaller image or export it at a lower size.`;
}
