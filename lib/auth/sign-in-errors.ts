/**
 * The same sentence whichever sign-in e-mail limit was reached, and whether or not the address has
 * an account: the answer must not tell anyone which addresses sign in here.
 */
export const SIGN_IN_EMAILS_LIMITED =
  "Too many sign-in e-mails were asked for just now, for this address or from your network. Wait a minute, then ask again.";

/** next-auth's error codes (and ours, EmailRateLimited), in words: the sign-in page and its form show these. */
export const SIGN_IN_ERRORS: Record<string, string> = {
  Verification: "That sign-in link has expired or was already used. Ask for a new one.",
  OAuthAccountNotLinked: "That account is linked to another address. Sign in the way you did before.",
  AccessDenied: "That account has no verified e-mail address we can sign you in as.",
  EmailSignin: "The sign-in e-mail could not be sent. Try again in a minute.",
  EmailRateLimited: SIGN_IN_EMAILS_LIMITED,
  CredentialsSignin: "That is not an e-mail address.",
};
