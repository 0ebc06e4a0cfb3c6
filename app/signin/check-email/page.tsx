import { cardClass, mutedClass } from "@/components/ui/styles";
import { signInLinksPrinted } from "@/lib/auth/sign-in-methods";
import type { Metadata } from "next";
import Link from "next/link";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Check your e-mail — Permalink" };

export default async function CheckEmailPage({ searchParams }: { searchParams: Promise<{ email?: string }> }) {
  const { email } = await searchParams;
  if (signInLinksPrinted()) return <PrintedLink />;
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

/** A local deployment without a mail server: the link is in the terminal that runs the server. */
function PrintedLink() {
  return (
    <main className="mx-auto max-w-md px-5 py-12">
      <h1 className="text-3xl font-bold">Open the link in your terminal</h1>
      <div className={cardClass + " mt-6"}>
        <p className="m-0">
          This copy of Permalink runs on your own computer without a mail server, so the sign-in message was printed in the
          terminal running <code>npm start</code>. Open the link on its own line there. It works once, for 15 minutes.
        </p>
        <p className={mutedClass}>
          To send real e-mail, connect this copy to a mail server: docs/configuration.md in the project says how.{" "}
          <Link href="/signin">Ask for another link</Link>.
        </p>
      </div>
    </main>
  );
}
