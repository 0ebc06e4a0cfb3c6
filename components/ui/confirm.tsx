"use client";

import { type ReactNode, useRef, useState } from "react";
import { Button } from "./button";

type Props = {
  /** The button's visible word ("Remove"), and what it acts on for screen readers ("example.com"). */
  label: string;
  what?: string;
  /** What happens and what cannot be undone, in a sentence or two. */
  question: ReactNode;
  /** The confirming button's words: "Yes, revoke the key". */
  confirm: string;
  /** A server action and its hidden fields, or a function to call. */
  action?: (form: FormData) => void;
  fields?: Record<string, string>;
  onConfirm?: () => void;
  pending?: boolean;
  small?: boolean;
};

/**
 * An action that cannot be undone (or breaks integrations), asked twice: the button opens a short
 * question in its place with the confirming button focused; Cancel puts the keyboard back on the button.
 */
export function Confirm({
  label,
  what,
  question,
  confirm,
  action,
  fields = {},
  onConfirm,
  pending = false,
  small = false,
}: Props) {
  const [asking, setAsking] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const cancel = () => {
    setAsking(false);
    // Back to the button the question replaced, once it is drawn again.
    requestAnimationFrame(() => opener.current?.focus());
  };
  if (!asking) {
    return (
      <Button ref={opener} variant={small ? "small" : "danger"} disabled={pending} onClick={() => setAsking(true)}>
        {label}
        {what && <span className="sr-only"> {what}</span>}
      </Button>
    );
  }
  const buttons = (
    <div className="flex flex-wrap gap-2">
      {/* The question replaces the button that opened it, so the keyboard's focus moves here. */}
      <Button
        type={action ? "submit" : "button"}
        variant="danger"
        disabled={pending}
        autoFocus
        onClick={
          action
            ? undefined
            : () => {
                setAsking(false);
                onConfirm?.();
              }
        }
      >
        {confirm}
      </Button>
      <Button onClick={cancel}>Cancel</Button>
    </div>
  );
  const frame = "w-full space-y-2 rounded-md border border-red-300 p-3 text-left dark:border-red-800";
  if (!action) {
    return (
      <div role="group" aria-label={`Confirm: ${label}${what ? ` ${what}` : ""}`} className={frame}>
        <p className="m-0 text-sm">{question}</p>
        {buttons}
      </div>
    );
  }
  return (
    <form action={action} aria-label={`Confirm: ${label}${what ? ` ${what}` : ""}`} className={frame}>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <p className="m-0 text-sm">{question}</p>
      {buttons}
    </form>
  );
}
