import type { Metadata } from "next";
import Link from "next/link";
import { cardClass, mutedClass } from "@/components/ui/styles";

export const metadata: Metadata = { title: "Check your e-mail — Permalink" };

export default async function CheckEmailPage({ searchParams }: { searchParams: Promise<{ email?: string }> }) {
  const { email } = await searchParams;
  return (
    <main className="mx-auto max-w-md px-5 py-12">
      <h1 className="text-3xl font-bold">Check your e-mail</h1>
      <div className={cardClass + " mt-6"}>
        <p className="m-0">
          We sent a sign-in link
          {email ? (
            <>
              {" "}
              to <strong>{email}</strong>
            </>
          ) : null}
          . It works once, for 15 minutes.
        </p>
        <p className={mutedClass}>
          Nothing arrived? Look in spam, or <Link href="/signin">ask for another link</Link>.
        </p>
      </div>
    </main>
  );
}
