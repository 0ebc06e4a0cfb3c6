"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * Redraws the page from the server every `seconds` (what the user typed and opened stays), so statuses the
 * background check changes show without a reload.
 */
export function LiveRefresh({ seconds }: { seconds: number }) {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => router.refresh(), seconds * 1000);
    return () => clearInterval(timer);
  }, [router, seconds]);
  return null;
}
