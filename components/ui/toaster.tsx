"use client";

import { createContext, type ReactNode, useCallback, useContext, useState } from "react";

type Notice = { id: number; text: string };

const NOTICE_SECONDS = 8;

const NotifyContext = createContext<(text: string) => void>(() => {});

/**
 * The dashboard's notices for outcomes whose place on the page goes away with them (a removed row,
 * a revoked invitation): a polite live region that is always there, so screen readers hear each one.
 */
export function Toaster({ children }: { children: ReactNode }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const notify = useCallback((text: string) => {
    const id = Date.now() + Math.random();
    setNotices((current) => [...current, { id, text }]);
    setTimeout(() => setNotices((current) => current.filter((notice) => notice.id !== id)), NOTICE_SECONDS * 1000);
  }, []);
  return (
    <NotifyContext.Provider value={notify}>
      {children}
      <div
        role="status"
        data-testid="notices"
        className="pointer-events-none fixed inset-x-4 bottom-4 z-50 flex flex-col items-center gap-2 sm:left-auto sm:items-end"
      >
        {notices.map((notice) => (
          <p
            key={notice.id}
            className={
              "pointer-events-auto m-0 max-w-md rounded-md bg-zinc-900 px-4 py-3 text-sm text-white shadow-lg " +
              "dark:bg-zinc-100 dark:text-zinc-900"
            }
          >
            {notice.text}
          </p>
        ))}
      </div>
    </NotifyContext.Provider>
  );
}

/** Shows a notice in the dashboard's toaster. */
export const useNotify = () => useContext(NotifyContext);
