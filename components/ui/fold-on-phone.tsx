"use client";

import { type ReactNode, useId, useState } from "react";
import { Button } from "./button";

/**
 * A form that would fill a phone's first screen, folded there behind one button (`label`) so the
 * list the page is about shows first; from the `sm` width up the button is gone and the form always
 * shows. The server draws it folded (or open, `startOpen`, when it holds something in use, such as a
 * search), and CSS alone decides by width, so nothing moves on hydration.
 */
export function FoldOnPhone({
  label,
  startOpen = false,
  panelClassName = "",
  children,
}: {
  label: string;
  startOpen?: boolean;
  /** Classes of the box around the form (a card, say), so a folded form is only its button on a phone. */
  panelClassName?: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(startOpen);
  const id = useId();
  return (
    <>
      <Button
        variant={open ? "secondary" : "primary"}
        className="w-full sm:hidden"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
      >
        {open ? "Hide the form" : label}
      </Button>
      <div id={id} className={(open ? "mt-4 sm:mt-0 " : "hidden sm:block ") + panelClassName}>
        {children}
      </div>
    </>
  );
}
