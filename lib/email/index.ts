import { config, isLocalDeployment } from "@/lib/config";
import { DomainError } from "@/lib/http/errors";
import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import nodemailer, { type Transporter } from "nodemailer";

/** One message to one person, or to several who all see each other's address: plain text always, HTML when the sender has it. */
export type OutgoingEmail = { to: string | string[]; subject: string; text: string; html?: string };

/**
 * How a message left: `smtp` (handed to SMTP_URL's server, which accepted it) or `log`
 * (development without SMTP_URL: written to the server's log for the developer to read).
 */
export type EmailDelivery = { via: "smtp"; messageId: string } | { via: "log" };

export const EMAIL_NOT_CONFIGURED =
  "E-mail is not set up on this deployment (SMTP_URL), so the message cannot be sent; ask its operator to configure outgoing mail.";

/** The mail server connection, made once per process for the configured SMTP_URL. */
const transport = processSingleton<{ url: string; transporter: Transporter } | undefined>("email.transport", () => undefined);

/**
 * Whether a message can go out now: through SMTP, or to the server's output outside production
 * and on a local deployment (lib/config isLocalDeployment). Callers that write something an
 * e-mail must accompany ask first, so nothing is half-written.
 */
export function emailAvailable(): boolean {
  return Boolean(config().SMTP_URL) || printsMessages();
}

/** Without SMTP_URL, where the person running the server reads the messages: never on a public production deployment. */
export function printsMessages(): boolean {
  const { SMTP_URL, NODE_ENV } = config();
  return !SMTP_URL && (NODE_ENV !== "production" || isLocalDeployment());
}

/**
 * Sends one message. With SMTP_URL it is handed to that server (a refusal or an unreachable
 * server is a 502); without it, in development or on a local deployment, it is printed to the
 * server's output; otherwise nothing is sent and the caller gets a 503 sentence.
 */
export async function sendEmail(message: OutgoingEmail): Promise<EmailDelivery> {
  const { SMTP_URL } = config();
  if (!SMTP_URL) {
    if (!printsMessages()) throw new DomainError("not_configured", EMAIL_NOT_CONFIGURED);
    log().info({ to: message.to, subject: message.subject }, "e-mail not sent (SMTP_URL is not set); printed below instead");
    // Plain text, not a JSON log line: the person at the terminal copies the link from its own line.
    process.stdout.write(printedMessage(message));
    return { via: "log" };
  }
  try {
    const info = await transporterFor(SMTP_URL).sendMail({ from: sender(), ...message, to: recipients(message.to) });
    return { via: "smtp", messageId: String(info.messageId) };
  } catch (error) {
    log().warn(
      { detail: (error as Error).message, code: (error as { code?: unknown }).code },
      "the mail server did not take a message",
    );
    throw new DomainError(
      "provider_failed",
      "The mail server did not accept the message; nothing was sent. Please try again in a moment.",
    );
  }
}

/** A message as the server's output shows it: framed, its text as written, so each link stands on its own line. */
export function printedMessage(message: OutgoingEmail): string {
  const rule = "-".repeat(72);
  const to = [message.to].flat().join(", ");
  return `${rule}\nE-mail to ${to} (not sent: SMTP_URL is not set)\nSubject: ${message.subject}\n\n${message.text.trimEnd()}\n${rule}\n`;
}

/**
 * The addresses as nodemailer's address objects, which it does not parse again: a normalised
 * address may hold a comma in its local part, which a plain string would split in two.
 */
function recipients(to: OutgoingEmail["to"]): { name: string; address: string }[] {
  return (Array.isArray(to) ? to : [to]).map((address) => ({ name: "", address }));
}

/** EMAIL_FROM, or a no-reply address on the app's own host. */
export function sender(): string {
  const { EMAIL_FROM, BASE_URL } = config();
  return EMAIL_FROM ?? `Permalink <no-reply@${new URL(BASE_URL).hostname}>`;
}

function transporterFor(url: string): Transporter {
  const current = transport.get();
  if (current?.url === url) return current.transporter;
  current?.transporter.close();
  const transporter = nodemailer.createTransport(smtpOptions(url));
  transport.set({ url, transporter });
  return transporter;
}

/**
 * SMTP_URL as nodemailer's options: host and port, TLS from the start for smtps: (STARTTLS when
 * the server offers it for smtp:), credentials from the URL's user and password (percent-decoded),
 * and bounded waits so a dead server fails in seconds rather than minutes.
 */
export function smtpOptions(url: string) {
  const parsed = new URL(url);
  const secure = parsed.protocol === "smtps:";
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ""),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    ...(parsed.username && { auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } }),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  };
}

/** Closes the mail server connection (tests, shutdown); the next message opens a new one. */
export function closeEmail(): void {
  transport.reset()?.transporter.close();
}
