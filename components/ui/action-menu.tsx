"use client";

import { type KeyboardEvent, type MouseEvent, type ReactNode, useEffect, useId, useRef, useState } from "react";
import { buttonClass } from "./styles";

/** Room kept between the menu and the window's edges, and between the menu and its button. */
const EDGE = 8;
const GAP = 4;

export const MENU_ITEM =
  "block w-full rounded px-3 py-2 text-left text-sm text-zinc-900 no-underline hover:bg-zinc-100 focus:bg-zinc-100 " +
  "focus-visible:outline-2 disabled:cursor-not-allowed disabled:opacity-60 dark:text-zinc-100 dark:hover:bg-zinc-800 dark:focus:bg-zinc-800";

/**
 * A button that opens a menu over the page (the HTML popover API puts it in the top layer, so no
 * scrolling box clips it), placed under its button or above it when the window has no room below.
 * The menu takes focus on its first item; the arrow keys, Home and End move between items; Escape
 * closes it and gives focus back to the button; choosing an item closes it. Each child that is an
 * item carries role="menuitem" (MENU_ITEM gives the look).
 */
export function ActionMenu({ label, name, children }: { label: string; name: string; children: ReactNode }) {
  const id = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    const panel = panelRef.current!;
    const onToggle = (event: Event) => {
      const opened = (event as ToggleEvent).newState === "open";
      setOpen(opened);
      if (!opened) return;
      place(buttonRef.current!, panel);
      menuItems(panel)[0]?.focus();
    };
    panel.addEventListener("toggle", onToggle);
    return () => panel.removeEventListener("toggle", onToggle);
  }, []);

  useEffect(() => {
    if (!open) return;
    const follow = () => place(buttonRef.current!, panelRef.current!);
    window.addEventListener("scroll", follow, true);
    window.addEventListener("resize", follow);
    return () => {
      window.removeEventListener("scroll", follow, true);
      window.removeEventListener("resize", follow);
    };
  }, [open]);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const panel = panelRef.current!;
    const items = menuItems(panel);
    const at = items.indexOf(document.activeElement as HTMLElement);
    const moveTo = (index: number) => items[(index + items.length) % items.length]?.focus();
    if (event.key === "ArrowDown") moveTo(at + 1);
    else if (event.key === "ArrowUp") moveTo(at < 0 ? -1 : at - 1);
    else if (event.key === "Home") moveTo(0);
    else if (event.key === "End") moveTo(-1);
    else if (event.key === "Escape") {
      panel.hidePopover();
      buttonRef.current!.focus();
    } else if (event.key === "Tab") panel.hidePopover();
    else return;
    if (event.key !== "Tab") event.preventDefault();
  }

  // Choosing an item closes the menu; the item's own action (a link's navigation, a button's handler) still runs.
  function onClick(event: MouseEvent<HTMLDivElement>) {
    if ((event.target as HTMLElement).closest('[role="menuitem"]')) panelRef.current!.hidePopover();
  }

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        popoverTarget={id}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={id}
        className={buttonClass.small + " whitespace-nowrap"}
      >
        {label}
        <span className="sr-only"> for {name}</span>
      </button>
      <div
        ref={panelRef}
        id={id}
        popover="auto"
        role="menu"
        aria-label={`${label} for ${name}`}
        onKeyDown={onKeyDown}
        onClick={onClick}
        className={
          "fixed inset-auto m-0 w-48 max-w-[calc(100vw-1rem)] rounded-md border border-zinc-200 bg-white p-1 text-zinc-900 shadow-lg " +
          "dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
        }
      >
        {children}
      </div>
    </>
  );
}

function menuItems(panel: HTMLElement): HTMLElement[] {
  return [...panel.querySelectorAll<HTMLElement>('[role="menuitem"]')].filter((item) => !(item as HTMLButtonElement).disabled);
}

/** Right-aligned under the button; above it when there is no room below; always inside the window. */
function place(button: HTMLElement, panel: HTMLElement) {
  const anchor = button.getBoundingClientRect();
  const { offsetWidth: width, offsetHeight: height } = panel;
  const left = Math.min(Math.max(EDGE, anchor.right - width), innerWidth - width - EDGE);
  const below = anchor.bottom + GAP;
  const above = anchor.top - GAP - height;
  const top = below + height <= innerHeight - EDGE || above < EDGE ? below : above;
  panel.style.left = `${Math.max(EDGE, left)}px`;
  panel.style.top = `${Math.max(EDGE, Math.min(top, innerHeight - height - EDGE))}px`;
}
