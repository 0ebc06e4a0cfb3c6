import { simpleParser } from "mailparser";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { freePort } from "../../server/app-process";
import { adminQuery, withDatabase } from "../../tests/support/database";
import { startTestDnsServer } from "../../tests/support/dns-server";
import type { FakeDnsRecords, FakeDnsServer } from "../../tests/support/fake-dns-server";

/**
 * Starts what the app needs and the app itself, as `npm start` starts it (production mode, local
 * billing provider): a fresh database on the PostgreSQL server of TEST_DATABASE_URL (or
 * DATABASE_URL), an SMTP server that writes every message it receives to a mailbox folder the
 * tests read, and the suite's DNS server for destination checks. Returns the teardown.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const serverUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!serverUrl)
    throw new Error(
      "The e2e suite needs PostgreSQL: set TEST_DATABASE_URL (for example postgresql://postgres@127.0.0.1:5432/postgres).",
    );
  const database = `plk_e2e_${randomBytes(4).toString("hex")}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${database}"`);

  const mailbox = await mkdtemp(path.join(tmpdir(), "permalink-e2e-mail-"));
  const smtp = await startSmtpServer(mailbox);
  const dns = await startTestDnsServer();
  const dnsControl = await startDnsControl(dns);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(path.join(tmpdir(), "permalink-e2e-data-"));

  const app = spawn("npm", ["start"], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(port),
      BASE_URL: baseUrl,
      DATABASE_URL: withDatabase(serverUrl, database),
      DATA_DIR: dataDir,
      AUTH_SECRET: randomBytes(32).toString("base64url"),
      BILLING_PROVIDER: "local",
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      EMAIL_FROM: "Permalink <sign-in@permalink.test>",
      DNS_RESOLVER: dns.resolver,
      RECHECK_INTERVAL_SECONDS: "0",
    },
  });
  const output = collectOutput(app);
  const teardown = async () => {
    await stopGroup(app);
    await new Promise<void>((resolve) => smtp.server.close(() => resolve()));
    await new Promise<void>((resolve) => dnsControl.server.close(() => resolve()));
    await dns.close();
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    if (process.env.E2E_SHOW_APP_OUTPUT) console.log(output.text());
    const errors = errorLines(output.text());
    if (errors.length > 0) throw new Error(`The app logged errors during the run:\n${errors.join("\n")}`);
  };
  await waitUntilAnswering(baseUrl, app, output).catch(async (error: unknown) => {
    await teardown();
    throw error;
  });

  process.env.E2E_BASE_URL = baseUrl;
  process.env.E2E_MAILBOX = mailbox;
  process.env.E2E_DNS_CONTROL = dnsControl.url;
  process.env.E2E_DATABASE_URL = withDatabase(serverUrl, database);

  return teardown;
}

async function startSmtpServer(mailbox: string): Promise<{ server: SMTPServer; port: number }> {
  await mkdir(mailbox, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then(async (mail) => {
          const to = [mail.to]
            .flat()
            .flatMap((address) => address?.value ?? [])
            .map((entry) => entry.address);
          const message = { to, subject: mail.subject, text: mail.text, html: mail.html || null };
          await writeFile(path.join(mailbox, `${Date.now()}-${count++}.json`), JSON.stringify(message));
          callback();
        })
        .catch(callback);
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { server, port };
}

/**
 * The tests run in a worker process, the DNS server here: `PUT /names/{name}` with a name's
 * records as JSON (FakeDnsRecords) sets what the app's resolver hears for it from then on, as a
 * customer does at their DNS provider.
 */
async function startDnsControl(dns: FakeDnsServer): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const name = /^\/names\/([^/]+)$/.exec(request.url ?? "")?.[1];
    if (request.method !== "PUT" || !name) return void response.writeHead(404).end();
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      dns.set(decodeURIComponent(name), JSON.parse(body) as FakeDnsRecords);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * What the app reported as going wrong: our logger's error and fatal lines, and anything else
 * (Next's own messages) that names an error. A browser flow that works can still log one, such
 * as a server action's redirect fetched from the wrong address.
 */
export function errorLines(output: string): string[] {
  return output.split("\n").filter((line) => {
    try {
      const { level } = JSON.parse(line) as { level?: unknown };
      return level === "error" || level === "fatal";
    } catch {
      return /error|failed/i.test(line);
    }
  });
}

export function collectOutput(child: ChildProcess): { text(): string } {
  let text = "";
  child.stdout?.on("data", (chunk) => (text += chunk));
  child.stderr?.on("data", (chunk) => (text += chunk));
  return { text: () => text };
}

/** The first start may build the app (the start script builds when the code is newer than .next). */
export async function waitUntilAnswering(url: string, child: ChildProcess, output: { text(): string }): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output.text()}`);
    const answered = await fetch(`${url}/api/openapi.json`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`npm start did not answer within 10 minutes:\n${output.text()}`);
}

/** npm start runs tsx, which runs the server: the whole process group gets the signal. */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  const killed = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 15_000);
  await exited;
  clearTimeout(killed);
}
