"use client";

import { buttonClass } from "@/components/ui/styles";
import { signOut } from "next-auth/react";

export function SignOutButton() {
  return (
    <button type="button" className={buttonClass.small} onClick={() => void signOut({ callbackUrl: "/" })}>
      Sign out
    </button>
  );
}
