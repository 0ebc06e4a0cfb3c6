import { simpleParser, type ParsedMail } from "mailparser";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export type CapturedMail = { envelopeFrom: string; envelopeTo: string[]; mail: ParsedMail; authenticatedAs: string | undefined };

export type TestSmtpServer = {
  /** smtp://user:password@127.0.0.1:port, the SMTP_URL to configure. */
  url: string;
  messages: CapturedMail[];
  /** The next message to `address` (or the one already received), within a few seconds. */
  messageTo(address: string): Promise<CapturedMail>;
  close(): Promise<void>;
};

/**
 * A real SMTP server on 127.0.0.1 that accepts only the given credentials and keeps every
 * message it receives, parsed (MIME, transfer encodings) as a mail client would read it.
 */
export async function startSmtpServer(credentials = { user: "mailer", pass: "s3cret:with@signs" }): Promise<TestSmtpServer> {
  const messages: CapturedMail[] = [];
  const waiting: { address: string; resolve: (mail: CapturedMail) => void }[] = [];
  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS offer, so the client authenticates in the clear, as allowed here.
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.pass) callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const captured = {
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            envelopeTo: session.envelope.rcptTo.map((recipient) => recipient.address),
            mail,
            authenticatedAs: session.user,
          };
          messages.push(captured);
          for (const waiter of waiting.splice(0)) {
            if (captured.envelopeTo.includes(waiter.address)) waiter.resolve(captured);
            else waiting.push(waiter);
          }
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.pass)}@127.0.0.1:${port}`,
    messages,
    messageTo(address) {
      const received = messages.find((message) => message.envelopeTo.includes(address));
      if (received) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        waiting.push({ address, resolve });
        setTimeout(() => reject(new Error(`No message to ${address} arrived`)), 5_000).unref();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
