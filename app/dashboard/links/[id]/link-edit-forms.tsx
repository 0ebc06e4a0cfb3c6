"use client";

import { Button } from "@/components/ui/button";
import { CustomerSentence } from "@/components/ui/customer-sentence";
import { errorFor } from "@/components/ui/field-error";
import { cardClass, errorClass, mutedClass, noticeClass } from "@/components/ui/styles";
import type { UtmTemplateView } from "@/lib/utm/schemas";
import { useActionState } from "react";
import { DestinationField, UtmBuilder, useUtmDestination } from "../../utm-builder";
import { archiveLinkAction, repointLinkAction, restoreLinkAction, type LinkEditState } from "../actions";

export function LinkEditForms({
  id,
  destination,
  canRepoint,
  canArchive,
  archived,
  templates,
}: {
  id: string;
  destination: string;
  templates: UtmTemplateView[];
  canRepoint: boolean;
  /** May archive and restore this link. */
  canArchive: boolean;
  archived: boolean;
}) {
  const [repointed, repoint, repointing] = useActionState<LinkEditState, FormData>(repointLinkAction, null);
  const [archiveState, archive, archiving] = useActionState<LinkEditState, FormData>(
    archived ? restoreLinkAction : archiveLinkAction,
    null,
  );
  return (
    <div className="grid gap-4 md:grid-cols-[2fr_1fr]">
      <section aria-labelledby="repoint-heading" className={cardClass}>
        <h2 id="repoint-heading" className="mt-0 text-lg">
          Repoint
        </h2>
        {canRepoint ? (
          <form action={repoint} className="space-y-3" key={repointed ? JSON.stringify(repointed) : "repoint"}>
            <input type="hidden" name="id" value={id} />
            <RepointFields typed={repointed?.typed ?? destination} state={repointed} pending={repointing} templates={templates} />
          </form>
        ) : (
          <p className={mutedClass}>Repointing needs an active subscription and the right to edit this link.</p>
        )}
        {repointed && !repointed.ok && !repointed.field && (
          <p role="alert" className={errorClass + " mt-3"}>
            <CustomerSentence text={repointed.error} />
          </p>
        )}
        {repointed?.ok && (
          <p role="status" className={noticeClass + " mt-3"}>
            Repointed to {repointed.value}.
          </p>
        )}
      </section>
      <section aria-labelledby="archive-heading" className={cardClass}>
        <h2 id="archive-heading" className="mt-0 text-lg">
          {archived ? "Archived" : "Archive"}
        </h2>
        <p className={mutedClass}>
          {archived
            ? "This link is hidden from the main list and keeps resolving. Restore it to list it again."
            : "Archiving hides the link from the main list. The code keeps resolving, and you can restore it any time."}
        </p>
        {canArchive && (
          <form action={archive}>
            <input type="hidden" name="id" value={id} />
            <Button type="submit" variant={archived ? "primary" : "danger"} disabled={archiving}>
              {archived ? "Restore this link" : "Archive this link"}
            </Button>
          </form>
        )}
        {archiveState && !archiveState.ok && (
          <p role="alert" className={errorClass + " mt-3"}>
            <CustomerSentence text={archiveState.error} />
          </p>
        )}
        {archiveState?.ok && (
          <p role="status" className={noticeClass + " mt-3"}>
            {archiveState.value}
          </p>
        )}
      </section>
    </div>
  );
}

/** The repoint form's fields, drawn afresh with each attempt: the link's destination, or what was typed when it was refused. */
function RepointFields({
  typed,
  state,
  pending,
  templates,
}: {
  typed: string;
  state: LinkEditState;
  pending: boolean;
  templates: UtmTemplateView[];
}) {
  const utm = useUtmDestination(typed);
  return (
    <>
      <DestinationField
        utm={utm}
        id="repoint-destination"
        label="New destination"
        help="The code keeps working; each visit checks the new destination live again until it has proven safe."
        error={errorFor("destination", state)}
      />
      <UtmBuilder idPrefix="repoint" utm={utm} templates={templates} />
      <Button type="submit" variant="primary" disabled={pending}>
        Repoint
      </Button>
    </>
  );
}
