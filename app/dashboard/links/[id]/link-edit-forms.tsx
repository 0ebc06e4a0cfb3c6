"use client";

import { useActionState } from "react";
import { buttonClass, cardClass, errorClass, inputClass, labelClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { archiveLinkAction, type LinkEditState, repointLinkAction } from "../../actions";

export function LinkEditForms({
  id,
  destination,
  canRepoint,
  canArchive,
}: {
  id: string;
  destination: string;
  canRepoint: boolean;
  canArchive: boolean;
}) {
  const [repointed, repoint, repointing] = useActionState<LinkEditState, FormData>(repointLinkAction, null);
  const [archived, archive, archiving] = useActionState<LinkEditState, FormData>(archiveLinkAction, null);
  return (
    <div className="grid gap-4 md:grid-cols-[2fr_1fr]">
      <section aria-labelledby="repoint-heading" className={cardClass}>
        <h2 id="repoint-heading" className="mt-0 text-lg">
          Repoint
        </h2>
        {canRepoint ? (
          <form action={repoint} className="space-y-3" key={repointed ? JSON.stringify(repointed) : "repoint"}>
            <input type="hidden" name="id" value={id} />
            <label htmlFor="repoint-destination" className={labelClass}>
              New destination
            </label>
            <input
              id="repoint-destination"
              name="destination"
              type="url"
              required
              defaultValue={repointed?.typed ?? destination}
              className={inputClass}
            />
            <p className={mutedClass + " m-0"}>
              The code keeps working; the link enters quarantine again so the new destination is checked live.
            </p>
            <button type="submit" className={buttonClass.primary} disabled={repointing}>
              Repoint
            </button>
          </form>
        ) : (
          <p className={mutedClass}>Repointing needs an active subscription and the right to edit this link.</p>
        )}
        {repointed && !repointed.ok && (
          <p role="alert" className={errorClass + " mt-3"}>
            {repointed.error}
          </p>
        )}
        {repointed?.ok && <p className={noticeClass + " mt-3"}>Repointed to {repointed.value}.</p>}
      </section>
      <section aria-labelledby="archive-heading" className={cardClass}>
        <h2 id="archive-heading" className="mt-0 text-lg">
          Archive
        </h2>
        <p className={mutedClass}>Archiving hides the link from the main list. The code keeps resolving.</p>
        {canArchive && (
          <form action={archive}>
            <input type="hidden" name="id" value={id} />
            <button type="submit" className={buttonClass.danger} disabled={archiving}>
              Archive this link
            </button>
          </form>
        )}
        {archived && !archived.ok && (
          <p role="alert" className={errorClass + " mt-3"}>
            {archived.error}
          </p>
        )}
        {archived?.ok && <p className={noticeClass + " mt-3"}>{archived.value}</p>}
      </section>
    </div>
  );
}
