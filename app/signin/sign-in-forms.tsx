"use client";

import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { errorClass, mutedClass } from "@/components/ui/styles";
import { SIGN_IN_ERRORS } from "@/lib/auth/sign-in-errors";
import type { SignInMethod } from "@/lib/auth/sign-in-methods";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";

export function SignInForms({
  methods,
  callbackUrl,
  linkPrinted,
}: {
  methods: SignInMethod[];
  callbackUrl: string;
  linkPrinted: boolean;
}) {
  const email = methods.find((method) => method.kind === "email");
  const development = methods.find((method) => method.kind === "development");
  const oauth = methods.filter((method) => method.kind === "oauth");
  return (
    <>
      {email && <EmailForm callbackUrl={callbackUrl} linkPrinted={linkPrinted} />}
      {oauth.length > 0 && (
        <div className="space-y-2">
          {oauth.map((method) => (
            <Button key={method.id} className="w-full" onClick={() => void signIn(method.id, { callbackUrl })}>
              Continue with {method.name}
            </Button>
          ))}
        </div>
      )}
      {development && <DevelopmentForm providerId={development.id} callbackUrl={callbackUrl} />}
    </>
  );
}

function EmailForm({ callbackUrl, linkPrinted }: { callbackUrl: string; linkPrinted: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    const address = String(new FormData(event.currentTarget).get("email") ?? "");
    const result = await signIn("email", { email: address, callbackUrl, redirect: false });
    setPending(false);
    if (result?.ok && !result.error) router.push(`/signin/check-email?email=${encodeURIComponent(address)}`);
    else
      setError(
        (result?.error && SIGN_IN_ERRORS[result.error]) ||
          "The sign-in e-mail could not be sent. Check the address and try again.",
      );
  }
  return (
    <form onSubmit={submit} className="space-y-3" aria-label="Sign in with an e-mail link">
      <TextField
        id="signin-email"
        label="E-mail address"
        help={
          linkPrinted
            ? "No mail server is set up on this computer: the link is printed in the terminal running the server."
            : undefined
        }
        name="email"
        type="email"
        autoComplete="email"
        required
      />
      {error && (
        <p role="alert" className={errorClass}>
          {error}
        </p>
      )}
      <Button type="submit" variant="primary" className="w-full" disabled={pending}>
        {pending ? "Sending…" : "E-mail me a sign-in link"}
      </Button>
    </form>
  );
}

function DevelopmentForm({ providerId, callbackUrl }: { providerId: string; callbackUrl: string }) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const address = String(new FormData(event.currentTarget).get("email") ?? "");
    void signIn(providerId, { email: address, callbackUrl });
  }
  return (
    <form
      onSubmit={submit}
      className="space-y-3 rounded-md border border-dashed border-amber-500 p-4"
      aria-label="Development sign-in"
    >
      <p className="m-0 text-sm font-semibold text-amber-800 dark:text-amber-300">Development only</p>
      <p className={mutedClass + " m-0"}>
        Sign in as any address without an e-mail. This deployment is not running in production; a production server never offers
        this.
      </p>
      <TextField id="dev-email" label="Address to sign in as" name="email" type="email" required defaultValue="dev@example.com" />
      <Button type="submit" className="w-full">
        Sign in as this address
      </Button>
    </form>
  );
}
