"use client";

import { Button } from "@/components/ui/button";
import { signOut } from "next-auth/react";

export function SignOutButton() {
  return (
    <Button variant="small" onClick={() => void signOut({ callbackUrl: "/" })}>
      Sign out
    </Button>
  );
}
