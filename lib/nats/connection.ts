import { config, type Config } from "@/lib/config";
import { natsServers } from "@/lib/config/nats";
import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import {
  connect,
  credsAuthenticator,
  nkeyAuthenticator,
  type NatsConnection,
  type NodeConnectionOptions,
} from "@nats-io/transport-node";
import { readFile } from "node:fs/promises";

/** A first connection waits at most this long; after that the client reconnects on its own, forever. */
const CONNECT_TIMEOUT_MS = 2_000;
const RECONNECT_WAIT_MS = 1_000;

export type NatsState = { status: "ok" } | { status: "unavailable"; reason: string };

type Holder = { connection: Promise<NatsConnection | null>; state: NatsState; everConnected: boolean };

/**
 * The process's one NATS connection, when NATS_URL is set. The client keeps reconnecting after a
 * loss; `state` follows its status events, so health and the scan path can tell, without a round trip.
 */
const processNats = processSingleton<Holder | null>("nats", () => {
  if (!config().NATS_URL) return null;
  const holder: Holder = {
    connection: Promise.resolve(null),
    state: { status: "unavailable", reason: "connecting" },
    everConnected: false,
  };
  holder.connection = openConnection(config(), holder);
  return holder;
});

/**
 * How to reach and authenticate to NATS, as nats.js takes it: the servers, and one of user and
 * password, a token, an NKey seed or a .creds file (lib/config refuses more than one); TLS when a
 * tls:// URL or a certificate setting asks for it (a server that requires TLS gets it anyway).
 */
export async function natsConnectOptions(settings: Config): Promise<NodeConnectionOptions> {
  const { servers, tls, credentials } = natsServers(settings.NATS_URL!);
  const options: NodeConnectionOptions = { servers };
  if (credentials && "token" in credentials) options.token = credentials.token;
  else if (credentials) Object.assign(options, credentials);
  if (settings.NATS_USER) Object.assign(options, { user: settings.NATS_USER, pass: settings.NATS_PASSWORD ?? "" });
  if (settings.NATS_TOKEN) options.token = settings.NATS_TOKEN;
  if (settings.NATS_NKEY_SEED) options.authenticator = nkeyAuthenticator(new TextEncoder().encode(settings.NATS_NKEY_SEED));
  if (settings.NATS_CREDS_FILE) options.authenticator = credsAuthenticator(await readFile(settings.NATS_CREDS_FILE));
  const { NATS_TLS_CA_FILE: caFile, NATS_TLS_CERT_FILE: certFile, NATS_TLS_KEY_FILE: keyFile } = settings;
  if (tls || caFile || certFile) options.tls = { caFile, certFile, keyFile };
  return options;
}

/** The client retries the first connection as it would a reconnect; until it succeeds, state says so. */
async function openConnection(settings: Config, holder: Holder): Promise<NatsConnection | null> {
  const slow = setTimeout(
    () => log().warn("NATS does not answer yet; scans are written to PostgreSQL directly until it does"),
    CONNECT_TIMEOUT_MS,
  );
  try {
    const connection = await connect({
      ...(await natsConnectOptions(settings)),
      name: "permalink",
      timeout: CONNECT_TIMEOUT_MS,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: RECONNECT_WAIT_MS,
      waitOnFirstConnect: true,
    });
    holder.state = { status: "ok" };
    holder.everConnected = true;
    void followStatus(connection, holder);
    return connection;
  } catch (error) {
    holder.state = { status: "unavailable", reason: describe(error) };
    holder.everConnected = true;
    log().error({ reason: holder.state.reason }, "NATS cannot be used; scans are written to PostgreSQL directly");
    return null;
  } finally {
    clearTimeout(slow);
  }
}

async function followStatus(connection: NatsConnection, holder: Holder): Promise<void> {
  for await (const event of connection.status()) {
    if (event.type === "disconnect") {
      holder.state = { status: "unavailable", reason: "disconnected; reconnecting" };
      log().warn("NATS disconnected; scans are written to PostgreSQL directly until it is back");
    } else if (event.type === "reconnect") {
      holder.state = { status: "ok" };
      log().info("NATS reconnected; scans go through its stream again");
    }
  }
}

/** Whether NATS_URL is set for this process. */
export function natsConfigured(): boolean {
  return Boolean(config().NATS_URL);
}

/** The connection, once open (null when NATS_URL is unset or the first connection failed). */
export async function natsConnection(): Promise<NatsConnection | null> {
  return (await processNats.get()?.connection) ?? null;
}

/**
 * The connection if it can take messages now: at once while connected, at most `waitMs` while the
 * process's first connection is being opened, and null while NATS is away (publishing then would
 * only queue in the client).
 */
export async function usableNatsConnection(waitMs: number): Promise<NatsConnection | null> {
  const holder = processNats.get();
  if (!holder) return null;
  if (holder.state.status === "ok") return holder.connection;
  if (!holder.everConnected) {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)));
    return Promise.race([holder.connection, gaveUp]).finally(() => clearTimeout(timer));
  }
  return null;
}

/** What this process knows of NATS now, without asking it. */
export function natsState(): NatsState | null {
  return processNats.get()?.state ?? null;
}

/** Drains and closes the connection (pending publishes are sent first); the next use opens a fresh one. */
export async function closeNats(): Promise<void> {
  const holder = processNats.reset();
  const connection = await holder?.connection;
  if (connection && !connection.isClosed()) await connection.drain().catch(() => connection.close());
}

/** The error's own words, without the URL (which may carry credentials). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\b\w+:\/\/[^\s]*/g, "the NATS server");
}
