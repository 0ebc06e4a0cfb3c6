"use client";

import { signOut } from "next-auth/react";
import { buttonClass } from "@/components/ui/styles";

export function SignOutButton() {
  return (
    <button type="button" className={buttonClass.small} onClick={() => void signOut({ callbackUrl: "/" })}>
      Sign out
    </button>
  );
}
