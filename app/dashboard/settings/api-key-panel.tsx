"use client";

import { Button } from "@/components/ui/button";
import { Confirm } from "@/components/ui/confirm";
import { CopyButton } from "@/components/ui/copy-button";
import { CustomerSentence } from "@/components/ui/customer-sentence";
import { errorClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { useActionState } from "react";
import { claimKeyAction, type KeyState, revokeKeyAction, rotateKeyAction } from "./actions";

export function ApiKeyPanel({ hasKey, canClaim, canRevoke }: { hasKey: boolean; canClaim: boolean; canRevoke: boolean }) {
  const [claimed, claim, claiming] = useActionState<KeyState>(claimKeyAction, null);
  const [revoked, revoke, revoking] = useActionState<KeyState>(revokeKeyAction, null);
  const [rotated, rotate, rotating] = useActionState<KeyState>(rotateKeyAction, null);
  const key = rotated?.ok ? rotated.value.key : claimed?.ok ? claimed.value.key : undefined;
  return (
    <div className="space-y-3">
      {key && (
        <div
          role="alert"
          className="space-y-2 rounded-md border border-amber-400 bg-amber-50 p-4 dark:border-amber-700 dark:bg-amber-950"
        >
          <p className="m-0 font-semibold">Copy this key now: it is shown only once.</p>
          <p className="m-0 text-sm">
            Anyone holding it can create links and repoint every code of this workspace. Store it in a secret manager.
          </p>
          <div className="flex flex-wrap items-center gap-2">
            <code className="break-all rounded bg-white px-2 py-1 dark:bg-zinc-900" data-testid="api-key-value">
              {key}
            </code>
            <CopyButton text={key} what="the API key" />
          </div>
        </div>
      )}
      {!hasKey && !key && canClaim && (
        <form action={claim}>
          <Button variant="primary" type="submit" disabled={claiming}>
            Create an API key
          </Button>
        </form>
      )}
      {hasKey && canRevoke && (
        <Confirm
          label="Rotate the API key"
          question={
            "Replace the API key with a new one now? The current key is refused from that moment, so every program " +
            "using it needs the new key, which is shown once."
          }
          confirm="Yes, replace the key"
          action={rotate}
          pending={rotating}
        />
      )}
      {hasKey && canRevoke && (
        <Confirm
          label="Revoke the API key"
          question={
            "Revoke the API key? Every program and integration using it is refused from that moment. " +
            "A new key can be created afterwards, but nothing brings this one back."
          }
          confirm="Yes, revoke the key"
          action={revoke}
          pending={revoking}
        />
      )}
      {!canClaim && !hasKey && <p className={mutedClass}>Only an owner or admin can create the workspace&apos;s key.</p>}
      {[claimed, revoked, rotated].map((state, index) =>
        state && !state.ok ? (
          <p key={index} role="alert" className={errorClass}>
            <CustomerSentence text={state.error} />
          </p>
        ) : null,
      )}
      {revoked?.ok && (
        <p role="status" className={noticeClass}>
          {revoked.value.message}
        </p>
      )}
    </div>
  );
}
