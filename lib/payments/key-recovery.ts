import { replaceWorkspaceKey } from "@/lib/auth/store";
import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { BASE62, randomString } from "@/lib/db/random";
import { DomainError, notFound, unauthenticated } from "@/lib/http/errors";
import { type Hex, verifyMessage } from "viem";
import { parseSiweMessage } from "viem/siwe";
import type { RecoverKeyInput, RecoveryNonce } from "./schemas";
import { consumeNonce, findMachineAccount, forgetExpiredNonces, payerDidOf, storeNonce } from "./store";

const NONCE_LIFETIME_MS = 10 * 60_000;
const NONCE_LENGTH = 32;
const NEW_NONCE = "Get a fresh nonce from GET /api/machine-accounts/nonce and sign a new message.";

/** What a recovery message must say to be meant for this service. */
type Audience = { domain: string; origin: string; scheme: string; network: string; chainId: number };

/** What the rest of a recovery needs from a message that names this service and its chain and is valid now. */
type ReadMessage = { address: Hex; nonce: string };

/**
 * A single-use nonce for a Sign-In-with-Ethereum message, with the fields the message must carry.
 * The nonce comes from the CSPRNG, not viem's generateSiweNonce (Math.random, and consecutive
 * nonces share all but one character).
 */
export async function issueRecoveryNonce(): Promise<RecoveryNonce> {
  const audience = audienceOf();
  const now = clock().now();
  const nonce = randomString(BASE62, NONCE_LENGTH);
  const expiresAt = new Date(now + NONCE_LIFETIME_MS);
  await storeNonce(nonce, expiresAt);
  void forgetExpiredNonces(new Date(now)).catch(() => undefined);
  return {
    nonce,
    expires_at: expiresAt.getTime(),
    domain: audience.domain,
    uri: audience.origin,
    chain_id: audience.chainId,
    version: "1",
  };
}

/**
 * A lost machine-account key, recovered by proving the wallet that paid: an EIP-4361 message for
 * this service, signed by the payer, with a nonce from issueRecoveryNonce. The new key replaces
 * the old one, which stops working at once.
 */
export async function recoverMachineKey(proof: RecoverKeyInput): Promise<string> {
  const audience = audienceOf();
  const message = readMessage(proof.message, audience);
  await requireSigner(proof, message.address);
  await spendNonce(message.nonce);
  const account = await findMachineAccount(payerDidOf(audience.network, message.address));
  if (!account) {
    throw notFound(
      `No machine account belongs to ${message.address} on ${audience.network}: only a wallet that bought a link here has one.`,
    );
  }
  return replaceWorkspaceKey(account.workspaceId);
}

function audienceOf(): Audience {
  const { BASE_URL, PAYMENT_NETWORK } = config();
  const base = new URL(BASE_URL);
  return {
    domain: base.host,
    origin: base.origin,
    scheme: base.protocol.slice(0, -1),
    network: PAYMENT_NETWORK,
    chainId: Number(PAYMENT_NETWORK.split(":")[1]),
  };
}

/** Parses the message and checks everything in it that does not need the database. */
function readMessage(text: string, audience: Audience): ReadMessage {
  const message = parseSiweMessage(text);
  const { address, domain, uri, version, chainId, nonce, issuedAt } = message;
  if (!address || !domain || !uri || !version || !chainId || !nonce || !issuedAt) {
    throw badMessage(
      "The message is not a Sign-In-with-Ethereum (EIP-4361) message with a domain, address, URI, " +
        "version, chain ID, nonce and issued-at time; build it with viem's createSiweMessage from the " +
        "fields GET /api/machine-accounts/nonce returns.",
    );
  }
  if (domain !== audience.domain || (message.scheme && message.scheme !== audience.scheme)) {
    throw badMessage(`The message is for ${domain}, not this service; its domain must be ${audience.domain}.`);
  }
  if (originOf(uri) !== audience.origin) {
    throw badMessage(`The message's URI ${uri} is not on this service; use ${audience.origin}.`);
  }
  if (version !== "1") throw badMessage(`The message has version ${version}; EIP-4361 messages have version 1.`);
  if (chainId !== audience.chainId) {
    throw badMessage(
      `The message is for chain ${chainId}; machine accounts here pay on ${audience.network}, so its chain ID must be ${audience.chainId}.`,
    );
  }
  const now = clock().now();
  for (const [field, time] of [
    ["Issued At", issuedAt],
    ["Expiration Time", message.expirationTime],
    ["Not Before", message.notBefore],
  ] as const) {
    if (time && Number.isNaN(time.getTime())) throw badMessage(`The message's ${field} is not an RFC 3339 date-time.`);
  }
  if (message.expirationTime && message.expirationTime.getTime() <= now) {
    throw new DomainError("gone", `The message expired at ${message.expirationTime.toISOString()}. ${NEW_NONCE}`);
  }
  if (message.notBefore && message.notBefore.getTime() > now) {
    throw badMessage(`The message is not valid before ${message.notBefore.toISOString()}.`);
  }
  return { address, nonce };
}

/**
 * The signature must recover to the message's address. Payers sign their payments (EIP-3009) as
 * externally owned accounts, so ECDSA recovery is the check; viem's verifySiweMessage would also
 * try smart-contract wallets (ERC-1271/6492), which needs an RPC node this service does not have.
 */
async function requireSigner(proof: RecoverKeyInput, address: Hex): Promise<void> {
  const signed = await verifyMessage({ address, message: proof.message, signature: proof.signature as Hex }).catch(() => false);
  if (!signed) throw unauthenticated(`The signature was not made by ${address}, the address the message names.`);
}

async function spendNonce(nonce: string): Promise<void> {
  const expiresAt = await consumeNonce(nonce);
  if (!expiresAt) throw unauthenticated(`This nonce was not issued by this service or has already been used. ${NEW_NONCE}`);
  if (expiresAt.getTime() <= clock().now()) throw new DomainError("gone", `This nonce has expired. ${NEW_NONCE}`);
}

function originOf(uri: string): string | null {
  try {
    return new URL(uri).origin;
  } catch {
    return null;
  }
}

function badMessage(sentence: string): DomainError {
  return new DomainError("invalid_request", sentence);
}
