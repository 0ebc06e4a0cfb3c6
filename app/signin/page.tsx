import { cardClass, errorClass, mutedClass } from "@/components/ui/styles";
import { dashboardContext } from "@/lib/api/dashboard";
import { SIGN_IN_ERRORS } from "@/lib/auth/sign-in-errors";
import { signInLinksPrinted, signInMethods } from "@/lib/auth/sign-in-methods";
import { config } from "@/lib/config";
import { sameOriginUrl } from "@/lib/http/return-url";
import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SignInForms } from "./sign-in-forms";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in — Permalink" };

/** Only our own origin: a callback URL elsewhere would make this page an open redirect. */
function safeReturnUrl(candidate: string | undefined): string {
  const { BASE_URL } = config();
  return sameOriginUrl(candidate, BASE_URL) ?? new URL("/dashboard", BASE_URL).href;
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const { callbackUrl, error } = await searchParams;
  const returnTo = safeReturnUrl(callbackUrl);
  if (await dashboardContext()) redirect(returnTo);
  const methods = signInMethods();
  return (
    <main className="mx-auto max-w-md px-5 py-12">
      <p className="m-0">
        <Link href="/">Permalink</Link>
      </p>
      <h1 className="mt-4 text-3xl font-bold">Sign in</h1>
      <div className={cardClass + " mt-6 space-y-6"}>
        {error && (
          <p role="alert" className={errorClass}>
            {SIGN_IN_ERRORS[error] ?? "Signing in did not work. Please try again."}
          </p>
        )}
        {methods.length === 0 ? (
          <p className={mutedClass}>
            This deployment has no way to sign in configured yet: set SMTP_URL, or GitHub or Google credentials.
          </p>
        ) : (
          <SignInForms methods={methods} callbackUrl={returnTo} linkPrinted={signInLinksPrinted()} />
        )}
      </div>
      <p className={mutedClass + " mt-6"}>
        Signing in creates your personal workspace the first time. Programs use API keys instead: see the{" "}
        <Link href="/docs">API reference</Link>.
      </p>
    </main>
  );
}
